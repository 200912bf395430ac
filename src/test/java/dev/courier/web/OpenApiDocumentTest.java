package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The OpenAPI document ({@code META-INF/openapi.yaml}, served at {@code /openapi}) is the contract, written by
 * hand; this test keeps it from drifting from the code: it lists exactly the operations the JAX-RS resources
 * declare, every operation names its real success and error answers, every error answer is a problem body, and
 * every reference resolves. (Whether the answers match the code's real responses is {@code ContractCheckServerIT}'s part.)
 * The rules, for a document and its resources: {@link ProductOpenApiDocumentTest}, {@link LabOpenApiDocumentTest}.
 */
abstract class OpenApiDocumentTest {

    /** The operations anonymous callers may call, in either document. */
    private static final Set<String> OPEN = Set.of("GET /api/scenario/check-back/{service}");

    private final Map<String, Object> document;
    private final java.nio.file.Path classes;
    private final java.util.function.Predicate<String> ours;

    /** A document and the resources it describes: the compiled classes under {@code classes} that {@code ours} names. */
    OpenApiDocumentTest(
            java.nio.file.Path document, java.nio.file.Path classes, java.util.function.Predicate<String> ours)
            throws IOException {
        try (Reader reader = Files.newBufferedReader(document)) {
            this.document = new Yaml().load(reader);
        }
        this.classes = classes;
        this.ours = ours;
    }

    @Test
    void should_document_exactly_the_operations_the_resources_declare() throws Exception {
        Set<String> declared = new TreeSet<>();
        for (Class<?> resource : resources()) {
            String base = "/api/" + resource.getAnnotation(Path.class).value().replaceAll("^/|/$", "");
            for (Method method : resource.getDeclaredMethods()) {
                String verb = verb(method);
                if (verb != null) {
                    Path path = method.getAnnotation(Path.class);
                    declared.add(verb + " " + base
                            + (path == null ? "" : "/" + path.value().replaceAll("^/|/$", "")));
                }
            }
        }
        assertEquals(declared, new TreeSet<>(operations().keySet()));
    }

    @Test
    void should_give_every_operation_an_id_its_answers_and_problem_bodies_for_errors() {
        Set<String> ids = new HashSet<>();
        operations().forEach((name, operation) -> {
            assertTrue(ids.add((String) operation.get("operationId")), name + ": a unique operationId");
            assertTrue(operation.get("summary") instanceof String, name + ": a summary");
            Map<String, Object> responses = map(operation.get("responses"));
            assertTrue(
                    responses.keySet().stream()
                            .anyMatch(code -> String.valueOf(code).startsWith("2")),
                    name + ": a success answer");
            if (!OPEN.contains(name)) {
                assertTrue(
                        responses.containsKey("401") || responses.containsKey(401), name + ": 401 for no credentials");
                assertTrue(
                        responses.containsKey("403") || responses.containsKey(403), name + ": 403 for the wrong role");
            }
            responses.forEach((code, answer) -> {
                Map<String, Object> response = resolve(map(answer));
                assertTrue(response.get("description") instanceof String, name + " " + code + ": a description");
                if (String.valueOf(code).matches("[45]\\d\\d")) {
                    Map<String, Object> content = map(response.get("content"));
                    assertTrue(content.containsKey("application/problem+json"), name + " " + code + ": a problem body");
                    assertEquals(
                            "#/components/schemas/Problem",
                            map(map(content.get("application/problem+json")).get("schema"))
                                    .get("$ref"),
                            name + " " + code);
                }
            });
            if (operation.containsKey("requestBody")) {
                Map<String, Object> json =
                        map(map(map(resolve(map(operation.get("requestBody")))).get("content"))
                                .get("application/json"));
                Map<String, Object> schema = map(json.get("schema"));
                assertTrue(
                        schema.containsKey("$ref") || schema.containsKey("oneOf"), name + ": a named request schema");
            }
        });
    }

    @Test
    void should_resolve_every_reference() {
        List<String> references = new ArrayList<>();
        collect(document, references);
        assertFalse(references.isEmpty());
        for (String reference : references) {
            assertTrue(reference.startsWith("#/components/"), reference);
            Object target = document;
            for (String part : reference.substring(2).split("/")) {
                target = map(target).get(part);
                assertTrue(target != null, "unresolved " + reference);
            }
        }
    }

    /** "VERB /path" → operation. */
    private Map<String, Map<String, Object>> operations() {
        Map<String, Map<String, Object>> all = new java.util.TreeMap<>();
        map(document.get("paths"))
                .forEach((path, item) -> map(item).forEach((verb, operation) -> {
                    if (Set.of("get", "put", "post", "delete", "patch").contains(verb)) {
                        all.put(verb.toUpperCase(java.util.Locale.ROOT) + " " + path, map(operation));
                    }
                }));
        return all;
    }

    private Map<String, Object> resolve(Map<String, Object> node) {
        Object reference = node.get("$ref");
        if (reference == null) {
            return node;
        }
        Object target = document;
        for (String part : ((String) reference).substring(2).split("/")) {
            target = map(target).get(part);
        }
        return map(target);
    }

    private static void collect(Object node, List<String> references) {
        if (node instanceof Map<?, ?> m) {
            m.forEach((key, value) -> {
                if ("$ref".equals(key)) {
                    references.add((String) value);
                } else {
                    collect(value, references);
                }
            });
        } else if (node instanceof List<?> list) {
            list.forEach(item -> collect(item, references));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object node) {
        assertTrue(node instanceof Map, "a mapping: " + node);
        return (Map<String, Object>) node;
    }

    private static String verb(Method method) {
        if (method.isAnnotationPresent(GET.class)) {
            return "GET";
        }
        if (method.isAnnotationPresent(POST.class)) {
            return "POST";
        }
        if (method.isAnnotationPresent(PUT.class)) {
            return "PUT";
        }
        return method.isAnnotationPresent(DELETE.class) ? "DELETE" : null;
    }

    /** The application's JAX-RS resources: the classes under {@link #classes} that are ours, with {@code @Path}. */
    private List<Class<?>> resources() throws IOException, ClassNotFoundException {
        List<Class<?>> found = new ArrayList<>();
        try (Stream<java.nio.file.Path> files = Files.walk(classes)) {
            for (java.nio.file.Path file : files.filter(f ->
                            f.toString().endsWith(".class") && !f.toString().contains("$"))
                    .toList()) {
                String name =
                        classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (!ours.test(name)) {
                    continue;
                }
                Class<?> type = Class.forName(name, false, OpenApiDocumentTest.class.getClassLoader());
                if (type.isAnnotationPresent(Path.class)) {
                    found.add(type);
                }
            }
        }
        assertTrue(found.size() >= 2, "the resources are compiled: " + found);
        return found;
    }
}
