package dev.courier.testing;

import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * A Zipkin collector for a test: takes the spans a server exports over Zipkin's JSON v2 API
 * ({@code POST /api/v2/spans}) and keeps them for the test to look at. Zipkin's format, because it names each
 * span's parent in plain JSON, and Liberty's MicroProfile Telemetry ships its exporter.
 */
public final class SpanCollector implements AutoCloseable {

    private final HttpServer server;
    private final List<JsonObject> spans = new CopyOnWriteArrayList<>();

    public SpanCollector() throws IOException {
        server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        server.createContext("/api/v2/spans", exchange -> {
            try (InputStream body =
                            "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                                    ? new GZIPInputStream(exchange.getRequestBody())
                                    : exchange.getRequestBody();
                    JsonReader reader = Json.createReader(body)) {
                for (JsonValue span : reader.readArray()) {
                    spans.add(span.asJsonObject());
                }
                exchange.sendResponseHeaders(202, -1);
            } catch (RuntimeException e) {
                exchange.sendResponseHeaders(400, -1);
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    /** Where a server sends its spans: the value of {@code OTEL_EXPORTER_ZIPKIN_ENDPOINT}. */
    public String endpoint() {
        return "http://localhost:" + server.getAddress().getPort() + "/api/v2/spans";
    }

    /** The spans of one trace collected so far. */
    public List<JsonObject> trace(String traceId) {
        return spans.stream()
                .filter(span -> traceId.equals(span.getString("traceId", null)))
                .toList();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
