package dev.courier.testing;

import com.sun.net.httpserver.HttpServer;
import dev.courier.client.CallSignature;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream application outside Courier's server, in the test JVM: answers check-backs COMMITTED for the ids
 * it committed and ROLLED_BACK for any other, counts the calls per id, and records notifications. Its answers are
 * signed with the secret Courier gave it ({@link #register}), as a producer's must be.
 */
public final class ProducerStub implements AutoCloseable {

    private final HttpServer server;
    private final Set<String> committed = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> checks = new ConcurrentHashMap<>();
    private final List<String> notifications = new CopyOnWriteArrayList<>();
    /** Per producer name: the signing secret of its registration. */
    private final Map<String, String> secrets = new ConcurrentHashMap<>();

    private ProducerStub(HttpServer server) {
        this.server = server;
    }

    public static ProducerStub start() throws IOException {
        // Without TCP_NODELAY the JDK server's separate header and body writes meet delayed ACKs: ~40 ms a call.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        ProducerStub stub = new ProducerStub(server);
        server.createContext("/check-back", exchange -> {
            String id = exchange.getRequestURI().getQuery().replaceFirst("^id=", "");
            stub.checks.computeIfAbsent(id, i -> new AtomicInteger()).incrementAndGet();
            String answer = "{\"status\":\"" + (stub.committed.contains(id) ? "COMMITTED" : "ROLLED_BACK") + "\"}";
            String secret = stub.secrets.get(exchange.getRequestURI().getPath().replaceFirst("^/check-back/?", ""));
            if (secret != null) {
                CallSignature.answerHeaders(
                                secret, exchange.getRequestHeaders().getFirst(CallSignature.SIGNATURE), answer)
                        .forEach(exchange.getResponseHeaders()::add);
            }
            reply(exchange, answer);
        });
        server.createContext("/notifications", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                stub.notifications.add(new String(body.readAllBytes(), StandardCharsets.UTF_8));
            }
            reply(exchange, "{}");
        });
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.start();
        return stub;
    }

    private static void reply(com.sun.net.httpserver.HttpExchange exchange, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** The JSON to register this stub as producer {@code name}. */
    public String registration(String name) {
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        return "{\"name\": \"" + name + "\", \"checkBackUrl\": \"" + base + "/check-back/" + name
                + "\", \"notificationUrl\": \""
                + base + "/notifications\"}";
    }

    /**
     * Registers this stub as producer {@code name} and keeps the signing secret Courier answers, to sign its answers
     * with. @return Courier's answer
     */
    public Http.Response register(Http http, String name) {
        Http.Response registered = http.post("api/producers", registration(name));
        if (registered.status() == 201) {
            secrets.put(name, registered.json().getString("signingSecret"));
        }
        return registered;
    }

    /** Records that the producer's local transaction for message {@code id} committed. */
    public void commit(String id) {
        committed.add(id);
    }

    public Set<String> committed() {
        return committed;
    }

    public Map<String, AtomicInteger> checks() {
        return checks;
    }

    public List<String> notifications() {
        return notifications;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
