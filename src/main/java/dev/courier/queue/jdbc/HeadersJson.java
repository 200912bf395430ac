package dev.courier.queue.jdbc;

import java.util.Map;

/** Headers as the JSON object of strings the SQL API takes: the JDK has no JSON writer, and this is all we need. */
final class HeadersJson {

    private HeadersJson() {}

    static String encode(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, String> header : headers.entrySet()) {
            if (json.length() > 1) {
                json.append(',');
            }
            string(json, header.getKey()).append(':');
            string(json, header.getValue());
        }
        return json.append('}').toString();
    }

    private static StringBuilder string(StringBuilder json, String value) {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"');
    }
}
