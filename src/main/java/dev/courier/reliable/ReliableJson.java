package dev.courier.reliable;

import dev.courier.access.Grants;
import dev.courier.platform.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of the reliable message service's REST API (field names fixed by the README). */
final class ReliableJson {

    private ReliableJson() {}

    static JsonObject outcome(Outcome outcome) {
        return Json.createObjectBuilder()
                .add("id", outcome.id())
                .add("state", outcome.state().name())
                .build();
    }

    /** One answer of a batch of reports: the message's state, or the problem that refused the report. */
    static JsonObject result(Report.Result result, jakarta.json.JsonValue item) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        if (result.report() != null) {
            json.add("messageId", result.report().messageId())
                    .add("subscriber", result.report().subscriber());
        } else {
            given(json, item, "messageId", "subscriber");
        }
        return answer(json, result.outcome(), result.problem());
    }

    /** One answer of a batch of settles: the message's state, or the problem that refused the settle. */
    static JsonObject result(Settle.Result result, jakarta.json.JsonValue item) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        if (result.settle() != null) {
            json.add("messageId", result.settle().messageId());
        } else {
            given(json, item, "messageId");
        }
        return answer(json, result.outcome(), result.problem());
    }

    /** The item's string {@code fields} as given, where it was too broken to read. */
    private static void given(JsonObjectBuilder json, jakarta.json.JsonValue item, String... fields) {
        if (item.getValueType() != jakarta.json.JsonValue.ValueType.OBJECT) {
            return;
        }
        for (String field : fields) {
            jakarta.json.JsonValue value = item.asJsonObject().get(field);
            if (value != null && value.getValueType() == jakarta.json.JsonValue.ValueType.STRING) {
                json.add(field, value);
            }
        }
    }

    private static JsonObject answer(
            JsonObjectBuilder json, Outcome outcome, dev.courier.platform.ProblemException problem) {
        if (problem == null) {
            return json.add("status", 200).add("state", outcome.state().name()).build();
        }
        return json.add("status", problem.status())
                .add("problem", dev.courier.platform.ProblemMapper.json(problem))
                .build();
    }

    static JsonObject producer(ProducerStatus status) {
        JsonObjectBuilder json = producerFields(status.producer());
        json.add("circuit", status.circuit().name())
                .add("pending", status.pending())
                .add("checksDue", status.checksDue());
        optional(json, "lastError", status.lastError());
        return json.build();
    }

    static JsonObjectBuilder producerFields(Producer producer) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("name", producer.name())
                .add("checkBackUrl", producer.checkBackUrl().toString());
        optional(json, "notificationUrl", producer.notificationUrl());
        json.add("principals", producer.principals().toJson());
        optional(json, "createdAt", producer.createdAt());
        return json;
    }

    static JsonObject topic(String topic, List<Subscriber> subscribers, Grants grants) {
        JsonArrayBuilder list = Json.createArrayBuilder();
        subscribers.forEach(s -> list.add(subscriber(s)));
        return Json.createObjectBuilder()
                .add("name", topic)
                .add("grants", grants.toJson())
                .add("subscribers", list)
                .build();
    }

    static JsonObject subscriber(Subscriber s) {
        return Json.createObjectBuilder()
                .add("name", s.name())
                .add("topic", s.topic())
                .add("queue", s.queue())
                .add("retryLimit", s.retryLimit())
                .add("deliveryTimeoutSeconds", seconds(s.deliveryTimeout()))
                .add("principals", s.principals().toJson())
                .build();
    }

    /**
     * @param withCheckError whether to show the last check-back error: what the producer's URL answered is for
     *     admins and the producer's principals, not every reader of the topic
     */
    static JsonObject message(ReliableMessage m, boolean withHistory, boolean withCheckError) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("id", m.id())
                .add("topic", m.topic())
                .add("producer", m.producer())
                .add("state", m.state().name());
        try (JsonReader reader = Json.createReader(new StringReader(m.payload()))) {
            json.add("payload", reader.readValue());
        }
        JsonObjectBuilder headers = Json.createObjectBuilder();
        m.headers().forEach(headers::add);
        json.add("headers", headers)
                .add("checkBackSeconds", seconds(m.checkBackAfter()))
                .add("checks", m.checks());
        optional(json, "deliverAt", m.deliverAt());
        optional(json, "nextCheckAt", m.nextCheckAt());
        if (withCheckError) {
            optional(json, "lastError", m.lastError());
        }
        optional(json, "createdAt", m.createdAt());
        optional(json, "updatedAt", m.updatedAt());
        JsonArrayBuilder deliveries = Json.createArrayBuilder();
        for (DeliveryRecord d : m.deliveries()) {
            JsonObjectBuilder delivery = Json.createObjectBuilder()
                    .add("subscriber", d.subscriber())
                    .add("state", d.state().name())
                    .add("attempts", d.attempts())
                    .add("retryLimit", d.retryLimit());
            optional(delivery, "lastError", d.lastError());
            optional(delivery, "nextAttemptAt", d.nextAttemptAt());
            optional(delivery, "consumedAt", d.consumedAt());
            deliveries.add(delivery);
        }
        json.add("deliveries", deliveries);
        if (withHistory) {
            JsonArrayBuilder history = Json.createArrayBuilder();
            for (Change change : m.history()) {
                JsonObjectBuilder entry =
                        Json.createObjectBuilder().add("at", change.at().toString());
                optional(entry, "subscriber", change.subscriber());
                optional(entry, "from", change.from());
                entry.add("to", change.to());
                optional(entry, "reason", change.reason());
                entry.add("server", change.server());
                history.add(entry);
            }
            json.add("history", history);
        }
        return json.build();
    }

    static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }

    private static void optional(JsonObjectBuilder json, String name, Object value) {
        if (value instanceof Instant instant) {
            json.add(name, instant.toString());
        } else if (value != null) {
            json.add(name, value.toString());
        }
    }
}
