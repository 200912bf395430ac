package dev.courier.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.jms.Message;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the helpers call after a transaction ends, by the status the transaction manager gives: a confirm or
 * consumed report only after {@code STATUS_COMMITTED}, a cancel or failure report only after
 * {@code STATUS_ROLLEDBACK}, and nothing after any other status ({@code STATUS_UNKNOWN}: the database went away
 * during the commit, which may have landed). A cancel there would lose a committed message for good; the check-back
 * and the redelivery read the barrier and inbox rows instead. The transaction manager's status is given by hand:
 * Liberty's cannot be made to report an unknown outcome without a database dying inside its commit.
 */
class UnknownOutcomeTest {

    private static final String ID = "3f6c2a9e-8b1d-4c57-9a0e-5d2f7b6e1c48";

    private final List<String> calls = new ArrayList<>();
    private final List<Synchronization> synchronizations = new ArrayList<>();

    @ParameterizedTest
    @MethodSource("statuses")
    void the_producer_confirms_after_a_commit_cancels_after_a_rollback_and_otherwise_leaves_it_to_the_check_back(
            int status) {
        ReliableProducer producer =
                new ReliableProducer(courier(), "orders", database(), transactions()).confirmingSynchronously();
        assertEquals(ID, producer.send("orders.placed", "{}"));
        complete(status);
        assertEquals(
                switch (status) {
                    case Status.STATUS_COMMITTED -> List.of("prepare", "confirm");
                    case Status.STATUS_ROLLEDBACK -> List.of("prepare", "cancel");
                    default -> List.of("prepare");
                },
                calls);
    }

    @ParameterizedTest
    @MethodSource("statuses")
    void the_consumer_reports_after_a_commit_or_a_rollback_and_otherwise_waits_for_the_redelivery(int status)
            throws Exception {
        ReliableConsumer consumer =
                new ReliableConsumer(courier(), "billing", database(), transactions()).reportingSynchronously();
        Message message = answering(Message.class, Map.of("getStringProperty", ID, "getBody", "{}"));
        consumer.consume(message, (id, payload) -> calls.add("handle"));
        complete(status);
        assertEquals(
                switch (status) {
                    case Status.STATUS_COMMITTED -> List.of("handle", "consumed");
                    case Status.STATUS_ROLLEDBACK -> List.of("handle", "failed");
                    default -> List.of("handle");
                },
                calls);
    }

    /** A committed, a rolled-back and two unknown outcomes, as a transaction manager reports them after completion. */
    static int[] statuses() {
        return new int[] {
            Status.STATUS_COMMITTED, Status.STATUS_ROLLEDBACK, Status.STATUS_UNKNOWN, Status.STATUS_NO_TRANSACTION
        };
    }

    private void complete(int status) {
        assertEquals(1, synchronizations.size(), "one synchronization registered");
        synchronizations.get(0).afterCompletion(status);
    }

    /** Courier: each call recorded by its name; a prepare answers {@link #ID}. */
    private CourierApi courier() {
        return (CourierApi) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {CourierApi.class}, (p, method, args) -> {
                    calls.add(method.getName());
                    return method.getName().equals("prepare") ? ID : null;
                });
    }

    /** An active transaction whose synchronizations are kept, to be completed by the test. */
    private TransactionSynchronizationRegistry transactions() {
        return (TransactionSynchronizationRegistry) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {TransactionSynchronizationRegistry.class},
                (p, method, args) -> switch (method.getName()) {
                    case "getTransactionStatus" -> Status.STATUS_ACTIVE;
                    case "registerInterposedSynchronization" -> {
                        synchronizations.add((Synchronization) args[0]);
                        yield null;
                    }
                    default -> null;
                });
    }

    /** A database whose statements succeed and whose queries find nothing (the barrier insert, the inbox check). */
    private static DataSource database() {
        return answering(DataSource.class, Map.of("executeUpdate", 1, "getDatabaseProductName", "Apache Derby"));
    }

    /**
     * An object of {@code type} that answers a method by its name from {@code answers}, an interface-typed method
     * with another such object, and anything else with its type's zero.
     */
    private static <T> T answering(Class<T> type, Map<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(
                UnknownOutcomeTest.class.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
                    Object answer = answers.get(method.getName());
                    if (answer != null) {
                        return answer;
                    }
                    Class<?> returned = method.getReturnType();
                    if (returned.isInterface()) {
                        return answering(returned, answers);
                    }
                    if (returned == boolean.class) {
                        return false;
                    }
                    if (returned == int.class) {
                        return 0;
                    }
                    if (returned == long.class) {
                        return 0L;
                    }
                    return null;
                }));
    }
}
