package dev.courier.reliable;

import dev.courier.client.CallSignature;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Instant;

/**
 * Puts Courier's signature ({@link CallSignature}) on a call to a producer: a check-back or a notification. No call
 * goes unsigned: a producer without a secret (registered before signing existed) is not called until it has one.
 */
final class Signer {

    private Signer() {}

    /** The producer has no signing secret, so Courier does not call it. */
    static final class Unsigned extends Exception {

        private static final long serialVersionUID = 1L;

        Unsigned() {
            super("the producer has no signing secret (registered before calls were signed) and Courier calls no"
                    + " producer unsigned: give it one with POST /api/producers/{name}/secret");
        }
    }

    /**
     * Adds the timestamp and signature headers for {@code secret}. The timestamp is the wall clock's, not Courier's
     * business clock: it is compared with the producer's clock. @throws Unsigned when there is no secret
     */
    static HttpRequest.Builder sign(HttpRequest.Builder request, String secret, String method, URI uri, String body)
            throws Unsigned {
        if (secret == null) {
            throw new Unsigned();
        }
        long now = Instant.now().getEpochSecond();
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        return request.header(CallSignature.TIMESTAMP, Long.toString(now))
                .header(CallSignature.SIGNATURE, CallSignature.sign(secret, now, method, target, body));
    }
}
