package dev.courier.testing;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for client-side tests: requests against the test server, JSON bodies parsed. */
public final class Http {

    // HTTP/1.1: with the default (HTTP/2 upgrade) the JDK client holds concurrent requests until the first answers.
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final URI base;

    public Http(String base) {
        this.base = URI.create(base.endsWith("/") ? base : base + "/");
    }

    /** The test server at {@code http://localhost:<it.http.port>/}. */
    public static Http server() {
        return new Http("http://localhost:" + System.getProperty("it.http.port", "19080") + "/");
    }

    /** The address of {@code path} on this server, for requests built by hand. */
    public URI uri(String path) {
        return base.resolve(path);
    }

    public Response get(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    public Response delete(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).DELETE());
    }

    public Response put(String path, String json) {
        return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Response post(String path, String json) {
        return post(path, "application/json", json);
    }

    public Response post(String path, String contentType, String body) {
        return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    public Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Status, content type and body of one response. */
    public record Response(int status, String contentType, String body) {

        public JsonObject json() {
            try (JsonReader reader = Json.createReader(new StringReader(body))) {
                return reader.readObject();
            }
        }

        @Override
        public String toString() {
            return status + " " + contentType + " " + body;
        }
    }
}
