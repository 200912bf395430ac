package dev.courier.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.jms.Message;
import jakarta.transaction.NotSupportedException;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The bad input of {@link ReliableConsumer#consumeInOwnTransaction}, refused before any transaction begins: a
 * message Courier did not send, and a thread that already has a transaction. (Its behaviour in a message-driven
 * bean is {@code ReliableMdbIT}'s.)
 */
class ConsumeInOwnTransactionTest {

    private final List<String> calls = new ArrayList<>();

    private final ReliableConsumer consumer = new ReliableConsumer(
                    proxy(CourierApi.class, Map.of()),
                    "billing",
                    proxy(DataSource.class, Map.of()),
                    proxy(TransactionSynchronizationRegistry.class, Map.of()))
            .reportingSynchronously();

    @Test
    void a_message_without_a_courier_id_is_refused_before_a_transaction_begins() {
        Message foreign = proxy(Message.class, Map.of()); // every property null
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> consumer.consumeInOwnTransaction(
                        transaction(null), foreign, (id, payload) -> calls.add("handled")));
        assertTrue(refused.getMessage().contains("courierMessageId"), refused.getMessage());
        assertEquals(List.of(), calls, "no transaction begun, no handler run");
    }

    @Test
    void a_thread_that_already_has_a_transaction_is_refused() {
        Message courier = proxy(Message.class, Map.of("getStringProperty", "3f6c2a9e-8b1d-4c57-9a0e-5d2f7b6e1c48"));
        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> consumer.consumeInOwnTransaction(
                        transaction(new NotSupportedException("nested")),
                        courier,
                        (id, payload) -> calls.add("handled")));
        assertTrue(refused.getMessage().contains("needs no transaction"), refused.getMessage());
        assertEquals(List.of("begin"), calls, "the handler never ran");
    }

    /** A UserTransaction whose begin is recorded and throws {@code onBegin} when given. */
    private UserTransaction transaction(Exception onBegin) {
        return (UserTransaction) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {UserTransaction.class}, (p, method, args) -> {
                    calls.add(method.getName());
                    if (method.getName().equals("begin") && onBegin != null) {
                        throw onBegin;
                    }
                    return null;
                });
    }

    private static <T> T proxy(Class<T> type, Map<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(
                type.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> answers.get(method.getName())));
    }
}
