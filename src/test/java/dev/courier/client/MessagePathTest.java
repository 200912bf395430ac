package dev.courier.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import jakarta.jms.Message;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A message id that is no Courier message id never reaches a request path: the helpers send nothing for it, where
 * an id such as {@code ../producers/x/secret?} taken from a broker property would have called another endpoint
 * with the helper's credentials. Against a real HTTP server that records what it is asked.
 */
class MessagePathTest {

    private static final String FORGED = "../producers/x/secret?";
    private static final String ID = "3f6c2a9e-8b1d-4c57-9a0e-5d2f7b6e1c48";

    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final HttpServer server = start();
    private final HttpCourierApi courier = new HttpCourierApi(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"),
            Duration.ofSeconds(5),
            "consumer",
            "secret");

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void a_forged_id_is_refused_by_every_call_that_puts_it_in_a_path_and_nothing_is_sent() {
        for (Runnable call : List.<Runnable>of(
                () -> courier.consumed(FORGED, "billing"),
                () -> courier.failed(FORGED, "billing", "no"),
                () -> courier.confirm(FORGED),
                () -> courier.cancel(FORGED),
                () -> courier.consumed(null, "billing"))) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, call::run);
            assertTrue(refused.getMessage().contains("messageId"), refused.getMessage());
        }
        assertEquals(List.of(), asked, "no request reached the server");
        courier.consumed(ID, "billing");
        assertEquals(List.of("POST /api/messages/" + ID + "/consumed"), asked, "a real id still goes out");
    }

    @Test
    void a_copy_whose_broker_property_is_no_courier_id_is_refused_before_a_transaction_begins() {
        List<String> begun = new CopyOnWriteArrayList<>();
        ReliableConsumer consumer = new ReliableConsumer(
                        courier,
                        "billing",
                        proxy(DataSource.class, null),
                        proxy(TransactionSynchronizationRegistry.class, null))
                .reportingSynchronously();
        UserTransaction transaction = proxy(UserTransaction.class, begun);
        Message forged = proxy(Message.class, null, FORGED);
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> consumer.consumeInOwnTransaction(transaction, forged, (id, payload) -> begun.add("handled")));
        assertTrue(refused.getMessage().contains("courierMessageId"), refused.getMessage());
        assertEquals(List.of(), begun, "no transaction begun, no handler run");
        assertEquals(List.of(), asked, "nothing reported");
    }

    private HttpServer start() {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
            s.createContext("/", exchange -> {
                asked.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
                byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            s.start();
            return s;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T proxy(Class<T> type, List<String> calls) {
        return proxy(type, calls, null);
    }

    /** Records each call's method name in {@code calls} (when given); a string property answers {@code property}. */
    private static <T> T proxy(Class<T> type, List<String> calls, String property) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
            if (calls != null) {
                calls.add(method.getName());
            }
            return method.getName().equals("getStringProperty") ? property : null;
        }));
    }
}
