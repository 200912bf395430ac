package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/**
 * Where a page of messages ended: the creation time and id of its last message, the order the query reads in. The
 * next page starts after it, so messages stored or purged meanwhile move no one to another page (as an offset
 * would), and the database seeks to it on its index instead of counting rows up to it.
 */
record PageCursor(Instant createdAt, String id) {

    String encode() {
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString((createdAt + " " + id).getBytes(StandardCharsets.UTF_8));
    }

    /** @throws ProblemException 400 for anything but a cursor a page gave */
    static PageCursor decode(String text) {
        try {
            String plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
            int space = plain.indexOf(' ');
            String id = plain.substring(space + 1);
            if (space > 0 && !id.isEmpty() && id.length() <= 64) {
                return new PageCursor(Instant.parse(plain.substring(0, space)), id);
            }
        } catch (IllegalArgumentException | DateTimeParseException e) {
            // refused below, the same way whatever was wrong
        }
        throw ProblemException.invalid("'after' must be the 'next' of a page");
    }
}
