package dev.courier.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.courier.client.CallSignature;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A producer's endpoints that attack their caller, in the test JVM (outside Courier's server, whose memory is
 * watched): the check-back answers 200 and then streams JSON without end, the notification endpoint answers 200
 * and then trickles a byte every 200 ms for ever. Each counts what it wrote and how often its caller hung up.
 */
public final class HostileProducer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicLong written = new AtomicLong();
    private final AtomicInteger cut = new AtomicInteger();

    private HostileProducer(HttpServer server) {
        this.server = server;
    }

    public static HostileProducer start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        HostileProducer producer = new HostileProducer(server);
        server.createContext("/check-back", exchange -> producer.stream(exchange, 65_536, 0));
        server.createContext("/notifications", exchange -> producer.stream(exchange, 1, 200));
        server.setExecutor(producer.threads);
        server.start();
        return producer;
    }

    /** Answers 200, then writes chunks of {@code size} bytes every {@code pauseMillis} until the caller hangs up. */
    private void stream(HttpExchange exchange, int size, long pauseMillis) throws IOException {
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        // Signature headers as a signed answer has them: the body is read (within bounds) before they are checked.
        exchange.getResponseHeaders().add(CallSignature.TIMESTAMP, Long.toString(System.currentTimeMillis() / 1000));
        exchange.getResponseHeaders().add(CallSignature.SIGNATURE, "v1=00");
        exchange.sendResponseHeaders(200, 0); // chunked: no end announced
        byte[] chunk = new byte[size];
        java.util.Arrays.fill(chunk, (byte) ' ');
        chunk[0] = '[';
        try (OutputStream out = exchange.getResponseBody()) {
            while (true) {
                out.write(chunk);
                out.flush();
                written.addAndGet(size);
                if (pauseMillis > 0) {
                    Thread.sleep(pauseMillis);
                }
            }
        } catch (IOException e) {
            cut.incrementAndGet(); // the caller closed the connection
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    /** The JSON to register these endpoints as producer {@code name}. */
    public String registration(String name) {
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        return "{\"name\": \"" + name + "\", \"checkBackUrl\": \"" + base + "/check-back\", \"notificationUrl\": \""
                + base + "/notifications\"}";
    }

    /** Bytes written to callers so far. */
    public long written() {
        return written.get();
    }

    /** How many answers the caller cut off. */
    public int cut() {
        return cut.get();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
