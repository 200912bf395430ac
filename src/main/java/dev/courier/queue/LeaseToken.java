package dev.courier.queue;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Lease tokens: {@code <message id>.<random>}, new for every lease, so that a token names its message and a
 * token from an earlier lease of the same message never matches again.
 */
final class LeaseToken {

    private static final SecureRandom RANDOM = new SecureRandom();

    private LeaseToken() {}

    /** A random part shared by the leases of one claim; each token is unique by its message id. */
    static String nonce() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    static String of(String messageId, String nonce) {
        return messageId + "." + nonce;
    }

    /** The message id a token names. @throws StaleLeaseException for a token this queue never issued */
    static String messageId(String token) {
        int dot = token == null ? -1 : token.indexOf('.');
        if (dot != 36 || token.length() > 80) {
            throw StaleLeaseException.unknown();
        }
        return token.substring(0, dot);
    }
}
