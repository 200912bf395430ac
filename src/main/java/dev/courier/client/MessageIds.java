package dev.courier.client;

import java.util.regex.Pattern;

/**
 * The form of a Courier message id (a UUID, which Courier makes at prepare), checked wherever an id comes from
 * outside the helper (a broker property, a caller's argument) before it goes into a request path: a forged id such
 * as {@code ../producers/x/secret?} would otherwise reach another endpoint with the helper's credentials.
 */
final class MessageIds {

    private static final Pattern ID = Pattern.compile("[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}");

    private MessageIds() {}

    /** @return {@code id} @throws IllegalArgumentException when it is no Courier message id (null included) */
    static String require(String id, String from) {
        if (id == null) {
            throw new IllegalArgumentException("not a Courier message: no " + from);
        }
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("not a Courier message id in " + from + " (a UUID is expected)");
        }
        return id;
    }
}
