package dev.courier.reliable;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * Tells a producer about a dead message or a dead delivery: {@code POST {notificationUrl}} with a JSON body
 * ({@code notificationId}, {@code kind}, {@code messageId}, {@code topic}, {@code producer}, {@code subscriber}
 * for a delivery, {@code reason}, {@code at}). A 2xx answer means told; anything else is tried again later, so a
 * producer may see a notification twice and can tell by its {@code notificationId}. Every call is signed with the
 * producer's secret and made as {@link ProducerCalls} makes them.
 */
@ApplicationScoped
class Notifier {

    /** The longest answer read: a producer's acknowledgement has nothing Courier reads but its status. */
    private static final long ANSWER_LIMIT = 65_536;

    @Inject
    private ProducerCalls calls;

    /**
     * Tells without holding a thread while the producer answers; the answer is read up to 64 KiB and within
     * {@code courier.reliable.check-back-call-timeout}, headers and body, or the call failed.
     *
     * @return completes with null when told, else with what went wrong; never exceptionally
     */
    CompletableFuture<String> tell(URI url, String secret, String body) {
        return calls.call(url, secret, "POST", body, ANSWER_LIMIT).handle((response, error) -> {
            if (error == null) {
                return response.statusCode() / 100 == 2 ? null : "notification answered HTTP " + response.statusCode();
            }
            Throwable cause = BoundedBody.cause(error);
            return cause instanceof ProducerCalls.Failed ? cause.getMessage() : cause.toString();
        });
    }
}
