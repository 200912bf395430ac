package dev.courier.client;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.spi.JsonProvider;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link CourierApi} over Courier's REST API at a base URL such as {@code http://courier:9080/}, as a user of
 * Courier's registry (HTTP Basic): a producer needs the {@code courier-producer} role, a consumer
 * {@code courier-consumer}. The current OpenTelemetry span, if any, goes with each call as its W3C
 * {@code traceparent} header.
 */
public final class HttpCourierApi implements CourierApi {

    /** Whether OpenTelemetry's API is there to read the current span from (it need not be). */
    private static final boolean TRACING = present("io.opentelemetry.context.Context");

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final URI base;
    private final Duration timeout;
    private final String authorization;
    /** Looked up once: {@code jakarta.json.Json} searches for its provider with a ServiceLoader on every call. */
    private final JsonProvider jsonp = JsonProvider.provider();

    /**
     * @param timeout how long one call may take before it counts as failed
     * @param user a user of Courier's registry
     * @param password the user's password
     */
    public HttpCourierApi(URI base, Duration timeout, String user, String password) {
        String text =
                Objects.requireNonNull(base, "Courier's base URL is required").toString();
        this.base = URI.create(text.endsWith("/") ? text : text + "/");
        this.timeout = Objects.requireNonNull(timeout, "timeout is required");
        this.authorization = "Basic "
                + Base64.getEncoder()
                        .encodeToString((Objects.requireNonNull(user, "user is required") + ":"
                                        + Objects.requireNonNull(password, "password is required"))
                                .getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String prepare(
            String topic, String producer, String payloadJson, Map<String, String> headers, Duration checkBackAfter) {
        JsonObjectBuilder body = jsonp.createObjectBuilder().add("topic", topic).add("producer", producer);
        try (JsonReader reader = jsonp.createReader(new StringReader(payloadJson))) {
            body.add("payload", reader.readValue());
        }
        if (headers != null && !headers.isEmpty()) {
            JsonObjectBuilder h = jsonp.createObjectBuilder();
            headers.forEach(h::add);
            body.add("headers", h);
        }
        if (checkBackAfter != null) {
            body.add("checkBackSeconds", checkBackAfter.toMillis() / 1000.0);
        }
        return call("POST", "api/messages", body.build().toString()).getString("id");
    }

    @Override
    public void confirm(String messageId) {
        call("POST", message(messageId, "/confirm"), "");
    }

    @Override
    public void cancel(String messageId) {
        call("DELETE", message(messageId, ""), null);
    }

    @Override
    public void consumed(String messageId, String subscriber) {
        call(
                "POST",
                message(messageId, "/consumed"),
                jsonp.createObjectBuilder()
                        .add("subscriber", subscriber)
                        .build()
                        .toString());
    }

    @Override
    public void failed(String messageId, String subscriber, String reason) {
        call(
                "POST",
                message(messageId, "/failed"),
                jsonp.createObjectBuilder()
                        .add("subscriber", subscriber)
                        .add("reason", reason == null || reason.isBlank() ? "failed" : reason)
                        .build()
                        .toString());
    }

    /** All the reports in one request ({@code POST api/messages/reports}), recorded in one transaction. */
    @Override
    public List<String> report(List<Report> reports) {
        jakarta.json.JsonArrayBuilder items = jsonp.createArrayBuilder();
        for (Report r : reports) {
            JsonObjectBuilder item = jsonp.createObjectBuilder()
                    .add("messageId", r.messageId())
                    .add("subscriber", r.subscriber())
                    .add("outcome", r.consumed() ? "CONSUMED" : "FAILED");
            if (!r.consumed()) {
                item.add("reason", r.reason().isBlank() ? "failed" : r.reason());
            }
            items.add(item);
        }
        return refusals(call(
                "POST",
                "api/messages/reports",
                jsonp.createObjectBuilder().add("reports", items).build().toString()));
    }

    @Override
    public List<String> settle(List<Settle> settles) {
        jakarta.json.JsonArrayBuilder items = jsonp.createArrayBuilder();
        for (Settle s : settles) {
            items.add(jsonp.createObjectBuilder()
                    .add("messageId", s.messageId())
                    .add("outcome", s.committed() ? "COMMITTED" : "ROLLED_BACK"));
        }
        JsonObject answer = call(
                "POST",
                "api/messages/settles",
                jsonp.createObjectBuilder().add("settles", items).build().toString());
        return refusals(answer);
    }

    private static List<String> refusals(JsonObject answer) {
        List<String> refused = new ArrayList<>();
        for (JsonObject result : answer.getJsonArray("results").getValuesAs(JsonObject.class)) {
            refused.add(
                    result.getInt("status") == 200
                            ? null
                            : result.getInt("status") + ": "
                                    + result.getJsonObject("problem").getString("detail", "refused"));
        }
        return refused;
    }

    /** A message's path: its id checked first, so that no id reaches another endpoint. */
    private static String message(String messageId, String rest) {
        return "api/messages/" + MessageIds.require(messageId, "messageId") + rest;
    }

    private JsonObject call(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(timeout)
                .header("Accept", "application/json")
                .header("Authorization", authorization);
        if (TRACING) {
            TraceHeader.inject(request);
        }
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new CourierException(0, "no answer from Courier at " + base + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CourierException(0, "interrupted calling Courier", e);
        }
        JsonObject json;
        try (JsonReader reader = jsonp.createReader(new StringReader(response.body()))) {
            json = reader.readObject();
        } catch (RuntimeException e) {
            json = jsonp.createObjectBuilder().build();
        }
        if (response.statusCode() / 100 != 2) {
            throw new CourierException(
                    response.statusCode(),
                    method + " " + path + " answered " + response.statusCode() + ": "
                            + json.getString("detail", response.body()),
                    null);
        }
        return json;
    }

    private static boolean present(String type) {
        try {
            Class.forName(type, false, HttpCourierApi.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The caller's span, if any, goes with the call: a prepare joins the caller's trace. Loaded only with the API. */
    private static final class TraceHeader {
        static void inject(HttpRequest.Builder request) {
            io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator.getInstance()
                    .inject(io.opentelemetry.context.Context.current(), request, HttpRequest.Builder::header);
        }
    }
}
