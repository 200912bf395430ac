package dev.courier.queue;

import java.util.regex.Pattern;

/**
 * A validated queue name: a letter followed by up to 62 letters, digits or underscores. Names are used as
 * values in SQL (never spliced into it), so this rule is about clarity, not injection.
 */
public record QueueName(String value) {

    private static final Pattern VALID = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,62}");

    /** @throws InvalidQueueNameException when {@code value} does not match {@code [A-Za-z][A-Za-z0-9_]{0,62}} */
    public QueueName {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new InvalidQueueNameException(value);
        }
    }

    public static QueueName of(String value) {
        return new QueueName(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
