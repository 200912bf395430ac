package dev.courier.queue;

import dev.courier.platform.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** The JSON shapes of the queue API; field names are fixed so that any client can rely on them. */
final class QueueJson {

    private QueueJson() {}

    static JsonObject queue(QueueInfo info, int waiting) {
        QueueSpec spec = info.spec();
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("name", spec.name().value())
                .add("database", info.database())
                .add("leaseSeconds", seconds(spec.lease()))
                .add("maxAttempts", spec.maxAttempts())
                .add(
                        "backoff",
                        Json.createObjectBuilder()
                                .add("initialSeconds", seconds(spec.backoff().initial()))
                                .add("multiplier", spec.backoff().multiplier())
                                .add("maxSeconds", seconds(spec.backoff().max())))
                .add("grants", spec.grants().toJson())
                .add("depth", info.depth())
                .add("ready", info.ready())
                .add("dead", info.dead())
                .add("waiting", waiting);
        info.oldestAge()
                .ifPresentOrElse(
                        age -> json.add("oldestAgeSeconds", seconds(age)), () -> json.addNull("oldestAgeSeconds"));
        return json.build();
    }

    static JsonObject sent(Sent sent) {
        return Json.createObjectBuilder()
                .add("id", sent.id())
                .add("deliverAt", sent.deliverAt().toString())
                .build();
    }

    static JsonObjectBuilder delivery(Delivery delivery) {
        return Json.createObjectBuilder()
                .add("id", delivery.id())
                .add("payload", delivery.payload().toJson())
                .add("payloadType", delivery.payload().type().name())
                .add("attempt", delivery.attempt())
                .add("leaseToken", delivery.leaseToken())
                .add("leaseExpiresAt", delivery.leaseExpiresAt().toString())
                .add("headers", headers(delivery.headers()));
    }

    static JsonObject message(MessageView view) {
        JsonObjectBuilder json = Json.createObjectBuilder()
                .add("id", view.id())
                .add("queue", view.queue().value())
                .add("state", view.state().name())
                .add("deliverAt", view.deliverAt().toString())
                .add("attempt", view.attempt())
                .add("payload", view.payload().toJson())
                .add("payloadType", view.payload().type().name())
                .add("headers", headers(view.headers()))
                .add("createdAt", view.createdAt().toString());
        optional(json, "leaseExpiresAt", view.state() == MessageState.LEASED ? view.leaseExpiresAt() : null);
        optional(json, "key", view.key());
        optional(json, "lastError", view.lastError());
        optional(json, "deadAt", view.deadAt());
        if (!view.history().isEmpty()) {
            JsonArrayBuilder history = Json.createArrayBuilder();
            view.history().forEach(a -> {
                JsonObjectBuilder attempt = Json.createObjectBuilder()
                        .add("attempt", a.attempt())
                        .add("failedAt", a.failedAt().toString())
                        .add("kind", a.kind());
                optional(attempt, "reason", a.reason());
                history.add(attempt);
            });
            json.add("history", history);
        }
        return json.build();
    }

    static JsonObject page(MessagePage page) {
        JsonArrayBuilder messages = Json.createArrayBuilder();
        page.messages().forEach(m -> messages.add(message(m)));
        JsonObjectBuilder json = Json.createObjectBuilder().add("messages", messages);
        page.next().ifPresentOrElse(next -> json.add("next", next), () -> json.addNull("next"));
        return json.build();
    }

    private static JsonObjectBuilder headers(Map<String, String> headers) {
        JsonObjectBuilder json = Json.createObjectBuilder();
        headers.forEach(json::add);
        return json;
    }

    private static void optional(JsonObjectBuilder json, String name, Object value) {
        if (value instanceof Instant instant) {
            json.add(name, instant.toString());
        } else if (value != null) {
            json.add(name, value.toString());
        }
    }

    static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }
}
