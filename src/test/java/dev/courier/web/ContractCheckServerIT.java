package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Holds the OpenAPI document against what Courier really answered during this run's integration tests (every
 * answer {@code ResponseRecorder} kept while the Arquillian tests ran, a few thousand): each answer's operation
 * and status must be documented, and its body must match the documented schema (types, required properties,
 * no undocumented properties where the schema closes the object). So a field or a status code added to the code
 * and not to the document, or documented and not real in shape, fails here. Runs after the Arquillian tests (it
 * is in the phase of the server tests) and needs no server; it prints which documented statuses no test made.
 */
class ContractCheckServerIT {

    private static final Path DOCUMENT = Path.of("src/main/resources/META-INF/openapi.yaml");
    /** The tests run courier-lab.war: the lab's operations are held to the lab's document. */
    private static final Path LAB_DOCUMENT = Path.of("src/lab/openapi.yaml");

    private static final Path ANSWERS =
            Path.of(System.getProperty("it.data.dir", "target/it-data"), "contract", "responses.jsonl");

    private Map<String, Object> document;

    @Test
    void every_answer_the_tests_saw_is_documented_and_matches_its_schema() throws IOException {
        try (Reader reader = Files.newBufferedReader(DOCUMENT)) {
            document = new Yaml().load(reader);
        }
        try (Reader reader = Files.newBufferedReader(LAB_DOCUMENT)) {
            Map<String, Object> lab = new Yaml().load(reader);
            map(document.get("paths")).putAll(map(lab.get("paths")));
            map(lab.get("components"))
                    .forEach((section, entries) -> map(entries)
                            .forEach((name, entry) -> map(map(document.get("components"))
                                            .get(section))
                                    .putIfAbsent(name, entry)));
        }
        List<Operation> operations = operations();
        assertTrue(Files.exists(ANSWERS), "the Arquillian tests ran before and recorded their answers at " + ANSWERS);
        Set<String> failures = new TreeSet<>();
        Map<String, Set<String>> seen = new TreeMap<>();
        int answers = 0;
        for (String line : Files.readAllLines(ANSWERS)) {
            JsonObject answer = json(line).asJsonObject();
            answers++;
            String method = answer.getString("method");
            String path = answer.getString("path");
            int status = answer.getInt("status");
            Operation operation = operations.stream()
                    .filter(o -> o.matches(method, path))
                    .max(Comparator.comparingInt(Operation::literals))
                    .orElse(null);
            if (operation == null) {
                if (status != 404 && status != 405) {
                    failures.add(method + " " + path + " → " + status + ": no such operation in the document");
                }
                continue;
            }
            seen.computeIfAbsent(operation.name(), k -> new TreeSet<>()).add(Integer.toString(status));
            Map<String, Object> response = operation.response(status);
            if (response == null) {
                failures.add(operation.name() + " → " + status + ": status not documented");
                continue;
            }
            String type = answer.getString("contentType").split(";")[0].trim();
            Map<String, Object> content = map(response.get("content"));
            if (content == null
                    || type.isEmpty()
                    || answer.getString("body").isEmpty()
                    || answer.getBoolean("truncated", false)) {
                continue;
            }
            Map<String, Object> media = map(content.get(type));
            if (media == null) {
                failures.add(operation.name() + " → " + status + ": content type " + type + " not documented");
                continue;
            }
            if (media.get("schema") != null && (type.endsWith("json"))) {
                List<String> errors = new ArrayList<>();
                check(json(answer.getString("body")), map(media.get("schema")), "$", errors);
                errors.forEach(e -> failures.add(operation.name() + " → " + status + ": " + e));
            }
        }
        assertTrue(answers > 100, "the tests' answers were recorded: " + answers);
        report(operations, seen);
        assertTrue(
                failures.isEmpty(),
                failures.size() + " disagreements between the document and the " + answers + " answers:\n"
                        + String.join("\n", failures));
    }

    /** Prints the documented statuses that no test produced: the document's claims no test holds yet. */
    private static void report(List<Operation> operations, Map<String, Set<String>> seen) {
        StringBuilder unseen = new StringBuilder();
        int documented = 0;
        int observed = 0;
        for (Operation operation : operations) {
            for (String status : operation.statuses()) {
                documented++;
                if (seen.getOrDefault(operation.name(), Set.of()).contains(status)) {
                    observed++;
                } else {
                    unseen.append("  ")
                            .append(operation.name())
                            .append(' ')
                            .append(status)
                            .append('\n');
                }
            }
        }
        // The list goes to a file: printed, it buried the build's own summary at the end of CI's log.
        Path file = Path.of("target", "contract-unseen.txt");
        try {
            Files.writeString(file, unseen);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.printf(
                "contract: %d of %d documented (operation, status) pairs seen in the tests; the others are listed in %s%n",
                observed, documented, file);
    }

    // ---- a validator for the part of OpenAPI 3.0 schemas the document uses ----

    private void check(JsonValue value, Map<String, Object> schema, String where, List<String> errors) {
        schema = resolve(schema);
        if (schema.isEmpty()) {
            return; // any value
        }
        if (value.getValueType() == JsonValue.ValueType.NULL) {
            if (!Boolean.TRUE.equals(schema.get("nullable")) && schema.get("type") != null) {
                errors.add(where + " is null, not nullable");
            }
            return;
        }
        for (String combinator : List.of("oneOf", "anyOf")) {
            if (schema.get(combinator) instanceof List<?> choices) {
                for (Object choice : choices) {
                    List<String> tried = new ArrayList<>();
                    check(value, map(choice), where, tried);
                    if (tried.isEmpty()) {
                        return;
                    }
                }
                errors.add(where + " matches none of " + combinator);
                return;
            }
        }
        if (schema.get("allOf") instanceof List<?> all) {
            schema = merged(all); // one object of all the parts' properties: each part alone would miss the others'
        }
        if (schema.get("enum") instanceof List<?> allowed
                && value instanceof jakarta.json.JsonString s
                && allowed.stream().noneMatch(a -> String.valueOf(a).equals(s.getString()))) {
            errors.add(where + " = " + s.getString() + " is not one of " + allowed);
        }
        Object type = schema.get("type");
        if (type == null) {
            return;
        }
        switch ((String) type) {
            case "object" -> {
                if (value.getValueType() != JsonValue.ValueType.OBJECT) {
                    errors.add(where + " is " + value.getValueType() + ", not an object");
                    return;
                }
                JsonObject object = value.asJsonObject();
                Map<String, Object> properties = map(schema.get("properties"));
                if (schema.get("required") instanceof List<?> required) {
                    required.stream()
                            .map(String::valueOf)
                            .filter(name -> !object.containsKey(name))
                            .forEach(name -> errors.add(where + " lacks required property " + name));
                }
                Object additional = schema.get("additionalProperties");
                object.forEach((name, member) -> {
                    if (properties != null && properties.containsKey(name)) {
                        check(member, map(properties.get(name)), where + "." + name, errors);
                    } else if (additional instanceof Map<?, ?> extra) {
                        check(member, map(extra), where + "." + name, errors);
                    } else if (properties != null && !Boolean.TRUE.equals(additional)) {
                        errors.add(where + " has undocumented property " + name);
                    }
                });
            }
            case "array" -> {
                if (value.getValueType() != JsonValue.ValueType.ARRAY) {
                    errors.add(where + " is " + value.getValueType() + ", not an array");
                    return;
                }
                Map<String, Object> items = map(schema.get("items"));
                int i = 0;
                for (JsonValue item : value.asJsonArray()) {
                    if (items != null) {
                        check(item, items, where + "[" + i++ + "]", errors);
                    }
                }
            }
            case "string" -> {
                if (value.getValueType() != JsonValue.ValueType.STRING) {
                    errors.add(where + " is " + value.getValueType() + ", not a string");
                }
            }
            case "integer" -> {
                if (!(value instanceof JsonNumber number) || !number.isIntegral()) {
                    errors.add(where + " is " + value + ", not an integer");
                }
            }
            case "number" -> {
                if (value.getValueType() != JsonValue.ValueType.NUMBER) {
                    errors.add(where + " is " + value.getValueType() + ", not a number");
                }
            }
            case "boolean" -> {
                if (value.getValueType() != JsonValue.ValueType.TRUE
                        && value.getValueType() != JsonValue.ValueType.FALSE) {
                    errors.add(where + " is " + value.getValueType() + ", not a boolean");
                }
            }
            default -> errors.add(where + ": unknown schema type " + type);
        }
    }

    /** The parts of an {@code allOf} as one schema: their properties and required names together. */
    private Map<String, Object> merged(List<?> parts) {
        Map<String, Object> properties = new java.util.LinkedHashMap<>();
        List<Object> required = new ArrayList<>();
        Map<String, Object> merged = new java.util.LinkedHashMap<>();
        for (Object part : parts) {
            Map<String, Object> schema = resolve(map(part));
            if (schema.get("allOf") instanceof List<?> nested) {
                schema = merged(nested);
            }
            if (schema.get("properties") != null) {
                properties.putAll(map(schema.get("properties")));
            }
            if (schema.get("required") instanceof List<?> names) {
                required.addAll(names);
            }
            if (schema.containsKey("nullable")) {
                merged.put("nullable", schema.get("nullable"));
            }
        }
        merged.put("type", "object");
        merged.put("properties", properties);
        merged.put("required", required);
        return merged;
    }

    private Map<String, Object> resolve(Map<String, Object> node) {
        while (node.get("$ref") instanceof String reference) {
            Object target = document;
            for (String part : reference.substring(2).split("/")) {
                target = map(target).get(part);
            }
            node = map(target);
        }
        return node;
    }

    private List<Operation> operations() {
        List<Operation> all = new ArrayList<>();
        map(document.get("paths"))
                .forEach((path, item) -> map(item).forEach((verb, operation) -> {
                    if (Set.of("get", "put", "post", "delete", "patch").contains(verb)) {
                        all.add(new Operation(
                                verb.toUpperCase(Locale.ROOT),
                                path,
                                map(map(operation).get("responses"))));
                    }
                }));
        return all;
    }

    /** One documented operation: its path template as a pattern, and its responses by status. */
    private final class Operation {

        private final String method;
        private final String template;
        private final Pattern pattern;
        private final Map<String, Object> responses;

        Operation(String method, String template, Map<String, Object> responses) {
            this.method = method;
            this.template = template;
            this.pattern = Pattern.compile(template.replaceAll("\\{[^}]+}", "[^/]+"));
            this.responses = responses;
        }

        String name() {
            return method + " " + template;
        }

        boolean matches(String method, String path) {
            return this.method.equals(method) && pattern.matcher(path).matches();
        }

        int literals() {
            return (int) java.util.Arrays.stream(template.split("/"))
                    .filter(s -> !s.startsWith("{"))
                    .count();
        }

        Set<String> statuses() {
            Set<String> statuses = new TreeSet<>();
            responses.keySet().forEach(k -> statuses.add(String.valueOf(k)));
            return statuses;
        }

        Map<String, Object> response(int status) {
            Object found = responses.get(Integer.toString(status));
            if (found == null) {
                found = responses.get(status);
            }
            if (found == null) {
                found = responses.get("default");
            }
            return found == null ? null : resolve(map(found));
        }
    }

    private static JsonValue json(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object node) {
        return (Map<String, Object>) node;
    }
}
