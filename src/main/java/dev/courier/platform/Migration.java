package dev.courier.platform;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One versioned DDL script, {@code V<version>__<description>.sql}: the statements it holds, in order.
 * Statements end with a semicolon at the end of a line; lines starting with {@code --} are comments.
 */
record Migration(int version, String description, List<String> statements) {

    private static final Pattern NAME = Pattern.compile("V(\\d+)__([A-Za-z0-9_]+)\\.sql");

    Migration {
        Objects.requireNonNull(description, "description is required");
        statements = List.copyOf(statements);
        if (version < 1) {
            throw new IllegalArgumentException("migration versions start at 1, was " + version);
        }
    }

    static Migration parse(String fileName, String script) {
        Matcher name = NAME.matcher(fileName);
        if (!name.matches()) {
            throw new IllegalArgumentException("migration file name must be V<n>__<description>.sql, was " + fileName);
        }
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\\R")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            current.append(current.isEmpty() ? "" : "\n").append(line.stripTrailing());
            if (trimmed.endsWith(";")) {
                current.setLength(current.length() - 1);
                statements.add(current.toString().strip());
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalArgumentException(fileName + ": last statement has no closing semicolon");
        }
        return new Migration(Integer.parseInt(name.group(1)), name.group(2).replace('_', ' '), statements);
    }
}
