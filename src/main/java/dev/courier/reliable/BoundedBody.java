package dev.courier.reliable;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An answer from a producer's endpoint read within bounds: at most {@code limit} bytes of body, and the whole
 * exchange (headers and body) within {@code deadline}. {@link HttpRequest#timeout} alone stops at the headers, and
 * a body handler that buffers without limit lets an endpoint that streams without end fill the heap; here the
 * connection is dropped the moment either bound is passed, and no thread waits on it meanwhile.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<String> {

    /** The answer was longer than the limit: refused unread. */
    static final class TooLarge extends Exception {
        private static final long serialVersionUID = 1L;

        TooLarge(long limit) {
            super("answer too large: over " + limit + " bytes");
        }
    }

    private final long limit;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<String> body = new CompletableFuture<>();
    private volatile Flow.Subscription subscription;

    private BoundedBody(long limit) {
        this.limit = limit;
    }

    /**
     * Sends {@code request} and reads its answer within the bounds. The stage fails with {@link TooLarge}, with a
     * {@link TimeoutException} when the deadline passes first, or with the client's error.
     */
    static CompletableFuture<HttpResponse<String>> send(
            HttpClient http, HttpRequest request, long limit, Duration deadline) {
        BoundedBody reader = new BoundedBody(limit);
        CompletableFuture<HttpResponse<String>> call = http.sendAsync(request, info -> reader);
        return call.orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS).whenComplete((answer, error) -> {
            if (error != null) { // past the deadline, or refused: drop the connection, whatever stage it is at
                reader.abandon(error);
                call.cancel(true);
            }
        });
    }

    /** {@code error} without its completion wrapper. */
    static Throwable cause(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        if (body.isDone()) {
            subscription.cancel();
        } else {
            subscription.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        for (ByteBuffer item : items) {
            if (bytes.size() + (long) item.remaining() > limit) {
                abandon(new TooLarge(limit));
                return;
            }
            byte[] chunk = new byte[item.remaining()];
            item.get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }
    }

    @Override
    public void onError(Throwable error) {
        body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        body.complete(bytes.toString(StandardCharsets.UTF_8));
    }

    @Override
    public CompletionStage<String> getBody() {
        return body;
    }

    private void abandon(Throwable why) {
        body.completeExceptionally(why);
        Flow.Subscription current = subscription;
        if (current != null) {
            current.cancel();
        }
    }
}
