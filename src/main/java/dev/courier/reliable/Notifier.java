package dev.courier.reliable;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * Tells a producer about a dead message or a dead delivery: {@code POST {notificationUrl}} with a JSON body
 * ({@code notificationId}, {@code kind}, {@code messageId}, {@code topic}, {@code producer}, {@code subscriber}
 * for a delivery, {@code reason}, {@code at}). A 2xx answer means told; anything else is tried again later, so a
 * producer may see a notification twice and can tell by its {@code notificationId}. Every call is signed with the
 * producer's secret ({@link Signer}).
 */
@ApplicationScoped
class Notifier {

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    /** The longest answer read: a producer's acknowledgement has nothing Courier reads but its status. */
    private static final long ANSWER_LIMIT = 65_536;

    @Inject
    private ReliableSettings settings;

    /**
     * Tells without holding a thread while the producer answers; the answer is read up to 64 KiB and within
     * {@code courier.reliable.check-back-call-timeout}, headers and body, or the call failed.
     *
     * @return completes with null when told, else with what went wrong; never exceptionally
     */
    CompletableFuture<String> tell(URI url, String secret, String body) {
        String refused = CallTargets.refusal(url, settings.allowedUrlHosts);
        if (refused != null) { // what the name resolves to may have changed since the producer registered
            return CompletableFuture.completedFuture("not called: " + refused);
        }
        HttpRequest request;
        try {
            request = Signer.sign(
                            HttpRequest.newBuilder(url)
                                    .timeout(settings.callTimeout)
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(body)),
                            secret,
                            "POST",
                            url,
                            body)
                    .build();
        } catch (Signer.Unsigned e) {
            return CompletableFuture.completedFuture(e.getMessage());
        }
        return BoundedBody.send(http, request, ANSWER_LIMIT, settings.callTimeout)
                .handle((response, error) -> {
                    if (error == null) {
                        return response.statusCode() / 100 == 2
                                ? null
                                : "notification answered HTTP " + response.statusCode();
                    }
                    Throwable cause = BoundedBody.cause(error);
                    if (cause instanceof BoundedBody.TooLarge) {
                        return "notification " + cause.getMessage();
                    }
                    if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException) {
                        return "notification timed out: no answer (headers and body) within " + settings.callTimeout;
                    }
                    return "no answer from " + url + ": " + cause;
                });
    }
}
