package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import java.util.regex.Pattern;

/**
 * Names of producers, topics and subscribers: a letter, then letters, digits, '_' or '-', at most 63 in all.
 * No dots, colons or quotes, so that the broker queue {@code topic.subscriber}, its fully qualified name
 * {@code topic::topic.subscriber} and its filter are unambiguous, and no name can reach into another topic's address.
 */
final class Names {

    private static final Pattern VALID = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,62}");

    private Names() {}

    /** @throws ProblemException 400 naming {@code what} when {@code value} is not a valid name */
    static String check(String what, String value) {
        if (!valid(value)) {
            throw ProblemException.invalid(
                    "'" + what + "' must be 1 to 63 letters, digits, '_' or '-', starting with a letter");
        }
        return value;
    }

    /** Whether {@code value} is a valid name ({@link #check} without the exception). */
    static boolean valid(String value) {
        return value != null && VALID.matcher(value).matches();
    }

    /** The broker queue of one subscriber of a topic. */
    static String queue(String topic, String subscriber) {
        return topic + "." + subscriber;
    }
}
