package dev.courier.reliable;

import dev.courier.client.CallSignature;
import dev.courier.platform.Json;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Broker accounts of subscribers. A subscriber's account may consume from and browse its own queue
 * ({@code topic::topic.subscriber}) and do nothing else on the broker: no send (no forged copy reaches anyone), no
 * other subscriber's queue, no queue created or deleted, no management. Courier's own account keeps every permission
 * on that queue, as on every address. The password is shown once, when it is issued; issuing again replaces it.
 *
 * <p>The broker checks a consumer against a security setting that names its queue exactly (a fully qualified
 * name) before the settings of the address, so one setting per subscriber is enough. Users and settings live in
 * the broker (its users file and journal): Courier keeps no broker password.
 */
@ApplicationScoped
class SubscriberAccounts {

    /** Artemis's code for "User … does not exist". */
    private static final String NO_SUCH_USER = "AMQ229224";

    @Inject
    private BrokerManagement management;

    /** The broker role of Courier's own user: every permission on every address ({@code bin/broker} makes it amq). */
    @Inject
    @ConfigProperty(name = "courier.reliable.broker-role", defaultValue = "amq")
    String courierRole;

    /** An issued account: the broker user, its password, and the queue it consumes. */
    record Account(String user, String password, String queue) {}

    /**
     * Gives subscriber {@code subscriber} of {@code topic} a broker account, or a new password for the one it has.
     * Outside a transaction. @throws jakarta.jms.JMSRuntimeException when the broker cannot be reached or refuses
     */
    Account issue(String topic, String subscriber) {
        String queue = Names.queue(topic, subscriber);
        String fullName = topic + "::" + queue;
        String role = "subscriber." + queue;
        JsonValue courier = Json.createValue(courierRole);
        JsonValue both = Json.createValue(courierRole + "," + role);
        // In the order of the broker's operation: send, consume, createDurableQueue, deleteDurableQueue,
        // createNonDurableQueue, deleteNonDurableQueue, manage, browse, createAddress, deleteAddress.
        management.invoke(
                "broker",
                "addSecuritySettings",
                Json.createValue(fullName),
                courier,
                both,
                courier,
                courier,
                courier,
                courier,
                courier,
                both,
                courier,
                courier);
        String password = CallSignature.newSecret();
        JsonValue[] user = {Json.createValue(queue), Json.createValue(password), Json.createValue(role), JsonValue.FALSE
        };
        try {
            management.invoke("broker", "resetUser", user);
        } catch (BrokerManagement.Answered e) {
            if (e.getMessage() == null || !e.getMessage().contains(NO_SUCH_USER)) {
                throw e;
            }
            management.invoke("broker", "addUser", user); // hashed in the broker's users file (plaintext false)
        }
        return new Account(queue, password, fullName);
    }
}
