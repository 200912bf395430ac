package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.contract.ApiClient;
import dev.courier.contract.ApiException;
import dev.courier.contract.api.AuditApi;
import dev.courier.contract.api.ConsoleApi;
import dev.courier.contract.api.QueueApi;
import dev.courier.contract.api.ReliableApi;
import dev.courier.contract.api.TwophaseApi;
import dev.courier.contract.model.ConfirmRequest;
import dev.courier.contract.model.ConsumedRequest;
import dev.courier.contract.model.Delivery;
import dev.courier.contract.model.LeaseRenewal;
import dev.courier.contract.model.LedgerEntry;
import dev.courier.contract.model.PrepareRequest;
import dev.courier.contract.model.ProbeRequest;
import dev.courier.contract.model.ProducerRegistration;
import dev.courier.contract.model.QueueDefinition;
import dev.courier.contract.model.ReceiveRequest;
import dev.courier.contract.model.ReleaseRequest;
import dev.courier.contract.model.ReliableMessageDetail;
import dev.courier.contract.model.ReplayRequest;
import dev.courier.contract.model.SendRequest;
import dev.courier.contract.model.SubscribeRequest;
import dev.courier.testing.CourierDeployment;
import dev.courier.testing.DatabaseIndependent;
import dev.courier.testing.Eventually;
import dev.courier.testing.Http;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Courier driven through a client generated from its OpenAPI document at build time (OpenAPI Generator, Java,
 * {@code native}): a short round trip of each capability, and a refused call whose problem body the client
 * hands back. A document that does not describe the real requests and answers breaks these calls.
 */
@DatabaseIndependent
@ExtendWith(ArquillianExtension.class)
class ContractIT {

    private final ApiClient admin = client("admin");

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void a_queue_message_goes_send_receive_renew_ack_and_a_second_ack_is_gone() throws Exception {
        QueueApi queues = new QueueApi(admin);
        QueueApi producer = new QueueApi(client("producer"));
        QueueApi consumer = new QueueApi(client("consumer"));
        String queue =
                "contract_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        assertEquals(
                1,
                queues.queueDefine(queue, new QueueDefinition().maxAttempts(1).leaseSeconds(30.0))
                        .getMaxAttempts());
        try {
            UUID id = producer.queueSend(
                            queue, new SendRequest().payload(Map.of("order", 7)).key("order-7"))
                    .getId();
            List<Delivery> received =
                    consumer.queueReceive(queue, new ReceiveRequest().max(1)).getMessages();
            assertEquals(id, received.get(0).getId());
            String token = received.get(0).getLeaseToken();
            assertTrue(consumer.queueRenewLease(
                            queue, id, new LeaseRenewal().leaseToken(token).extendSeconds(60.0))
                    .getLeaseExpiresAt()
                    .isAfter(java.time.OffsetDateTime.now().plusSeconds(30)));
            consumer.queueAck(queue, id, token, null);
            assertEquals(0, queues.queueGet(queue).getDepth());

            ApiException gone = assertThrows(ApiException.class, () -> consumer.queueAck(queue, id, token, null));
            assertEquals(410, gone.getCode());
            assertEquals("urn:courier:problem:message-gone", problem(gone).getString("type"));

            // A message to the dead letters (one attempt, released) and back.
            UUID dead = producer.queueSend(queue, new SendRequest().payload("again"))
                    .getId();
            Delivery leased = consumer.queueReceive(queue, new ReceiveRequest().max(1))
                    .getMessages()
                    .get(0);
            consumer.queueRelease(
                    queue,
                    dead,
                    new ReleaseRequest().leaseToken(leased.getLeaseToken()).reason("contract"));
            assertEquals(
                    dead,
                    queues.deadList(queue, null, null).getMessages().get(0).getId());
            assertEquals(
                    1,
                    queues.deadReplay(queue, new ReplayRequest().ids(List.of(dead)))
                            .getReplayed());
            assertEquals("READY", queues.queueGetMessage(queue, dead).getState().getValue());
        } finally {
            queues.queueDrop(queue);
        }
    }

    @Test
    void a_reliable_message_goes_prepare_confirm_consumed_and_completes() throws Exception {
        ReliableApi reliable = new ReliableApi(admin);
        String producer = "contract-" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "contract-topic-" + UUID.randomUUID().toString().substring(0, 8);
        reliable.producerRegister(new ProducerRegistration()
                .name(producer)
                .checkBackUrl(URI.create("http://localhost:" + System.getProperty("it.http.port", "19080")
                        + "/api/test/upstream/" + producer)));
        reliable.topicSubscribe(
                topic,
                new SubscribeRequest()
                        .name("billing")
                        .retryLimit(3)
                        .deliveryTimeoutSeconds(java.math.BigDecimal.valueOf(60)));
        UUID id = reliable.messagePrepare(
                        new PrepareRequest().topic(topic).producer(producer).payload(Map.of("order", 8)))
                .getId();
        assertEquals("PENDING", reliable.messageGet(id).getState().getValue());
        assertEquals(
                "SENT",
                reliable.messageConfirm(id, new ConfirmRequest()).getState().getValue());
        reliable.messageConsumed(id, new ConsumedRequest().subscriber("billing"));
        ReliableMessageDetail completed = Eventually.await("completed", Duration.ofSeconds(10), () -> {
            try {
                ReliableMessageDetail m = reliable.messageGet(id);
                return "COMPLETED".equals(m.getState().getValue())
                        ? java.util.Optional.of(m)
                        : java.util.Optional.empty();
            } catch (ApiException e) {
                throw new IllegalStateException(e);
            }
        });
        LedgerEntry billing = completed.getDeliveries().get(0);
        assertEquals("CONSUMED", billing.getState().getValue());
        assertFalse(completed.getHistory().isEmpty());

        ApiException conflict = assertThrows(ApiException.class, () -> reliable.messageCancel(id));
        assertEquals(409, conflict.getCode());
        assertEquals(409, problem(conflict).getInt("status"));
    }

    @Test
    void an_xa_probe_the_audit_and_the_console_numbers_answer_as_documented() throws Exception {
        TwophaseApi twophase = new TwophaseApi(admin);
        String probe = twophase.probeCreate(new ProbeRequest().body("contract"))
                .getId()
                .toString();
        assertEquals("contract", twophase.probeGet(probe).getBody());
        assertFalse(new AuditApi(admin).auditList(10, null, null).getEntries().isEmpty());
        assertFalse(new ConsoleApi(admin).consoleMetrics().getMetrics().isEmpty());

        ApiException forbidden =
                assertThrows(ApiException.class, () -> new AuditApi(client("consumer")).auditList(10, null, null));
        assertEquals(403, forbidden.getCode());
    }

    private static ApiClient client(String user) {
        ApiClient client = new ApiClient();
        client.updateBaseUri("http://localhost:" + System.getProperty("it.http.port", "19080"));
        String authorization = Http.basic(user, Http.password(user));
        client.setRequestInterceptor(request -> request.header("Authorization", authorization));
        return client;
    }

    private static JsonObject problem(ApiException e) {
        try (var reader = Json.createReader(new StringReader(e.getResponseBody()))) {
            return reader.readObject();
        }
    }
}
