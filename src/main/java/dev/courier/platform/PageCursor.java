package dev.courier.platform;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/**
 * Where a page ended: the time and id of its last row, the order its query reads in (reliable messages by creation,
 * audit entries by when they were recorded). The next page starts after it, so rows stored or purged meanwhile move
 * no one to another page (as an offset would), rows that share a time are neither skipped nor shown twice, and the
 * database seeks to it on its index instead of counting rows up to it. Opaque to callers: they pass back the
 * {@code next} a page gave as {@code after}.
 */
public record PageCursor(Instant at, String id) {

    public String encode() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((at + " " + id).getBytes(StandardCharsets.UTF_8));
    }

    /** @throws ProblemException 400 for anything but a cursor a page gave */
    public static PageCursor decode(String text) {
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
