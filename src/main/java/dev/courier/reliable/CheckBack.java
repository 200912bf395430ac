package dev.courier.reliable;

import dev.courier.client.CallSignature;
import dev.courier.platform.Json;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Asks a producer what became of a pending message: {@code GET {checkBackUrl}?id=…}, answered with
 * {@code {"status": "COMMITTED" | "ROLLED_BACK" | "PENDING"}}; a COMMITTED answer may carry the final
 * {@code payload}. No whole answer (headers and body) within {@code courier.reliable.check-back-call-timeout}, an
 * answer longer than {@code courier.reliable.max-payload-bytes} + 16 KiB (dropped as soon as it passes that), a
 * status other than 200, an answer the producer did not sign ({@link CallSignature#answerHeaders}, unless the
 * producer is one of {@code courier.reliable.unsigned-answers-from}) or an unreadable body is a failure. Every call
 * is signed with the producer's secret ({@link Signer}) and made as {@link ProducerCalls} makes them.
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

    @Inject
    private ProducerCalls calls;

    @Inject
    private ReliableSettings settings;

    /**
     * Asks without holding a thread while the producer thinks: the answer completes the returned stage.
     *
     * @return completes with the answer, or exceptionally with a {@link Failure}
     */
    CompletableFuture<Answer> ask(String producer, URI checkBackUrl, String secret, String messageId) {
        URI uri;
        try {
            uri = URI.create(checkBackUrl + "?id=" + URLEncoder.encode(messageId, StandardCharsets.UTF_8));
        } catch (RuntimeException e) { // the caller holds a permit of the producer's gate: fail, never throw
            return CompletableFuture.failedFuture(new CompletionException(new Failure("not called: " + e)));
        }
        boolean unsignedTaken = settings.unsignedAnswersFrom.orElse(List.of()).contains(producer);
        return calls.call(uri, secret, "GET", "", answerLimit()).handle((response, error) -> {
            try {
                if (error != null) {
                    Throwable cause = BoundedBody.cause(error);
                    throw cause instanceof ProducerCalls.Failed ? new Failure(cause.getMessage()) : error;
                }
                return answer(response, secret, unsignedTaken);
            } catch (Failure failure) {
                throw new CompletionException(failure);
            } catch (Throwable unexpected) {
                throw new CompletionException(unexpected);
            }
        });
    }

    private static boolean signed(HttpResponse<String> response, String secret) {
        return CallSignature.verifyAnswer(
                secret,
                response.headers().firstValue(CallSignature.TIMESTAMP).orElse(null),
                response.headers().firstValue(CallSignature.SIGNATURE).orElse(null),
                response.request().headers().firstValue(CallSignature.SIGNATURE).orElse(null),
                response.body(),
                Instant.now(),
                CallSignature.DEFAULT_TOLERANCE);
    }

    /** The longest answer read: the largest payload it may carry, and room for the rest of its JSON. */
    private long answerLimit() {
        return settings.maxPayloadBytes + 16_384L;
    }

    private static Answer answer(HttpResponse<String> response, String secret, boolean unsignedTaken) throws Failure {
        if (response.statusCode() != 200) {
            throw new Failure("check-back answered HTTP " + response.statusCode());
        }
        if (!unsignedTaken && !signed(response, secret)) {
            // Not read: an outcome or a payload nobody can vouch for must not settle a message.
            throw new Failure("check-back answer not signed with the producer's secret (" + CallSignature.SIGNATURE
                    + " over this call; see courier.reliable.unsigned-answers-from for a producer that cannot yet)");
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
