package dev.courier.queue;

import dev.courier.platform.Columns;
import dev.courier.platform.ProblemException;
import java.util.Map;

/** Message headers as stored: a JSON object of strings, or NULL for none. */
final class Headers {

    static final int MAX_LENGTH = 8000;

    private Headers() {}

    static String encode(Map<String, String> headers) {
        String text = Columns.json(headers);
        if (text != null && text.length() > MAX_LENGTH) {
            throw ProblemException.invalid("headers take more than " + MAX_LENGTH + " characters as JSON");
        }
        return text;
    }

    static Map<String, String> decode(String text) {
        return Columns.map(text);
    }
}
