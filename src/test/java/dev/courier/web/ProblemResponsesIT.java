package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every bad request to {@code /api} answers 4xx with an RFC 9457 problem body and no stack trace. */
@ExtendWith(ArquillianExtension.class)
class ProblemResponsesIT {

    private final Http http = Http.server();

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void should_answer_400_for_malformed_json() {
        assertProblem(400, http.post("api/twophase/probes", "{\"body\": "));
    }

    @Test
    void should_answer_400_for_json_of_the_wrong_shape() {
        assertProblem(400, http.post("api/twophase/probes", "[1, 2]"));
    }

    @Test
    void should_answer_400_for_a_missing_body() {
        assertProblem(400, http.post("api/twophase/probes", ""));
    }

    @Test
    void should_answer_400_for_a_blank_or_missing_field() {
        assertProblem(400, http.post("api/twophase/probes", "{\"body\": \"   \"}"));
        assertProblem(400, http.post("api/twophase/probes", "{}"));
    }

    @Test
    void should_answer_400_for_a_body_over_the_limit() {
        assertProblem(400, http.post("api/twophase/probes", "{\"body\": \"" + "x".repeat(1001) + "\"}"));
    }

    @Test
    void should_answer_431_for_too_many_or_too_large_headers() {
        java.net.http.HttpRequest.Builder many =
                java.net.http.HttpRequest.newBuilder(http.uri("api/queues")).GET();
        for (int i = 0; i < 101; i++) {
            many.header("X-Padding-" + i, "x");
        }
        assertProblem(431, http.send(many));
        assertProblem(
                431,
                http.send(java.net.http.HttpRequest.newBuilder(http.uri("api/queues"))
                        .header("X-Padding", "x".repeat(17_000))
                        .GET()));
        assertEquals(200, http.get("api/queues").status(), "an ordinary request passes");
    }

    @Test
    void should_answer_415_for_a_non_json_content_type() {
        assertProblem(415, http.post("api/twophase/probes", "text/plain", "hello"));
    }

    @Test
    void should_answer_404_for_an_unknown_record_and_an_unknown_path() {
        assertProblem(404, http.get("api/twophase/probes/no-such-id"));
        assertProblem(404, http.get("api/no-such-resource"));
    }

    @Test
    void should_answer_405_for_a_method_the_resource_does_not_have() {
        assertProblem(405, http.put("api/twophase/probes", "{}"));
    }

    @Test
    void should_serve_the_written_openapi_document_as_it_is() throws java.io.IOException {
        Http.Response openapi = Http.management()
                .send(java.net.http.HttpRequest.newBuilder(Http.management().uri("openapi"))
                        .header("Accept", "application/json")
                        .GET());
        assertEquals(200, openapi.status());
        java.util.Set<String> served = new java.util.TreeSet<>();
        openapi.json()
                .getJsonObject("paths")
                .forEach((path, item) -> item.asJsonObject().forEach((verb, operation) -> {
                    if (operation.getValueType() == jakarta.json.JsonValue.ValueType.OBJECT
                            && operation.asJsonObject().containsKey("operationId")) {
                        served.add(operation.asJsonObject().getString("operationId"));
                    }
                }));
        java.util.Set<String> written = new java.util.TreeSet<>();
        try (java.io.Reader reader = java.nio.file.Files.newBufferedReader(
                java.nio.file.Path.of("src/main/resources/META-INF/openapi.yaml"))) {
            Object paths = ((java.util.Map<?, ?>) new org.yaml.snakeyaml.Yaml().load(reader)).get("paths");
            ((java.util.Map<?, ?>) paths)
                    .values()
                    .forEach(item -> ((java.util.Map<?, ?>) item).values().forEach(operation -> {
                        if (operation instanceof java.util.Map<?, ?> o && o.get("operationId") instanceof String id) {
                            written.add(id);
                        }
                    }));
        }
        assertEquals(written, served, "the document served is the one written, nothing scanned added");
        assertTrue(openapi.json()
                .getJsonObject("components")
                .getJsonObject("schemas")
                .containsKey("Problem"));
    }

    private static void assertProblem(int status, Http.Response response) {
        assertEquals(status, response.status(), response::toString);
        assertEquals("application/problem+json", response.contentType(), response::toString);
        JsonObject problem = response.json();
        assertAll(
                () -> assertEquals(status, problem.getInt("status")),
                () -> assertFalse(problem.getString("type").isBlank()),
                () -> assertFalse(problem.getString("title").isBlank()),
                () -> assertFalse(problem.getString("detail").isBlank()),
                () -> assertFalse(response.body().contains("Exception"), "no exception names leak"),
                () -> assertFalse(response.body().contains("\tat "), "no stack trace"));
    }
}
