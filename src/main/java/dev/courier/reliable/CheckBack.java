package dev.courier.reliable;

import dev.courier.platform.Json;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * Asks a producer what became of a pending message: {@code GET {checkBackUrl}?id=…}, answered with
 * {@code {"status": "COMMITTED" | "ROLLED_BACK" | "PENDING"}}; a COMMITTED answer may carry the final
 * {@code payload}. No whole answer (headers and body) within {@code courier.reliable.check-back-call-timeout}, an
 * answer longer than {@code courier.reliable.max-payload-bytes} + 16 KiB (dropped as soon as it passes that), a
 * status other than 200 or an unreadable body is a failure. Every call is signed with the producer's secret ({@link Signer}).
 */
@ApplicationScoped
class CheckBack {

    /** What the producer answered. */
    enum Status {
        COMMITTED,
        ROLLED_BACK,
        PENDING
    }

    /** An answer: a status, and for COMMITTED maybe the final payload as JSON text. */
    record Answer(Status status, Optional<String> payload) {}

    /** A check-back that got no usable answer. */
    static final class Failure extends Exception {

        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    @Inject
    private ReliableSettings settings;

    /**
     * Asks without holding a thread while the producer thinks: the answer completes the returned stage.
     *
     * @return completes with the answer, or exceptionally with a {@link Failure}
     */
    CompletableFuture<Answer> ask(URI checkBackUrl, String secret, String messageId) {
        String refused = CallTargets.refusal(checkBackUrl, settings.allowedUrlHosts);
        if (refused != null) { // what the name resolves to may have changed since the producer registered
            return CompletableFuture.failedFuture(new CompletionException(new Failure("not called: " + refused)));
        }
        URI uri = URI.create(checkBackUrl + "?id=" + URLEncoder.encode(messageId, StandardCharsets.UTF_8));
        HttpRequest request;
        try {
            request = Signer.sign(
                            HttpRequest.newBuilder(uri)
                                    .timeout(settings.callTimeout)
                                    .header("Accept", "application/json")
                                    .GET(),
                            secret,
                            "GET",
                            uri,
                            "")
                    .build();
        } catch (Signer.Unsigned e) {
            return CompletableFuture.failedFuture(new CompletionException(new Failure(e.getMessage())));
        }
        return BoundedBody.send(http, request, answerLimit(), settings.callTimeout)
                .handle((response, error) -> {
                    if (error != null) {
                        Throwable cause = BoundedBody.cause(error);
                        if (cause instanceof BoundedBody.TooLarge) {
                            throw new CompletionException(new Failure("check-back " + cause.getMessage()));
                        }
                        if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException) {
                            throw new CompletionException(
                                    new Failure("check-back timed out: no answer (headers and body) within "
                                            + settings.callTimeout));
                        }
                        throw new CompletionException(new Failure("no answer from " + checkBackUrl + ": " + cause));
                    }
                    try {
                        return answer(response);
                    } catch (Failure failure) {
                        throw new CompletionException(failure);
                    }
                });
    }

    /** The longest answer read: the largest payload it may carry, and room for the rest of its JSON. */
    private long answerLimit() {
        return settings.maxPayloadBytes + 16_384L;
    }

    private static Answer answer(HttpResponse<String> response) throws Failure {
        if (response.statusCode() != 200) {
            throw new Failure("check-back answered HTTP " + response.statusCode());
        }
        try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
            JsonObject body = reader.readObject();
            Status status = Status.valueOf(body.getString("status"));
            JsonValue payload = body.get("payload");
            boolean hasPayload = status == Status.COMMITTED && payload != null && payload != JsonValue.NULL;
            return new Answer(status, hasPayload ? Optional.of(payload.toString()) : Optional.empty());
        } catch (RuntimeException e) {
            // Not the body: an answer from somewhere Courier should not have called must not become readable here.
            throw new Failure("unreadable check-back answer (HTTP 200, "
                    + response.body().length() + " characters, not the expected JSON)");
        }
    }
}
