package dev.courier.queue;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One receiver's event stream, which tells whether the receiver is still there: a write to a connection its
 * client closed fails (at the latest on the second write, once the client's reset came back), and a failed
 * write closes the stream for good.
 */
final class EventStream {

    private static final Logger LOG = Logger.getLogger(EventStream.class.getName());
    private static final long WRITE_SECONDS = 10;

    private final SseEventSink sink;
    private final Sse sse;

    EventStream(SseEventSink sink, Sse sse) {
        this.sink = sink;
        this.sse = sse;
    }

    /** Writes a comment. @return whether the receiver is still there */
    synchronized boolean heartbeat() {
        return write(sse.newEventBuilder().comment("waiting").build());
    }

    /** Writes the stream's last event and closes it. @return whether the event was written */
    synchronized boolean last(String name, String json) {
        try {
            return write(sse.newEventBuilder()
                    .name(name)
                    .mediaType(MediaType.APPLICATION_JSON_TYPE)
                    .data(json)
                    .build());
        } finally {
            sink.close();
        }
    }

    private boolean write(OutboundSseEvent event) {
        if (sink.isClosed()) {
            return false;
        }
        try {
            sink.send(event).toCompletableFuture().get(WRITE_SECONDS, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.log(Level.FINE, "the receiver's stream is gone", e);
            sink.close();
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
