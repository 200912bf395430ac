package dev.courier.queue.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The library's headers are valid JSON whatever their characters: read back by a JSON parser, they are equal. */
class HeadersJsonTest {

    @Test
    void should_encode_any_string_so_that_a_parser_reads_it_back() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("plain", "v");
        headers.put("quote\"d", "back\\slash");
        headers.put("control", "line\nbreak\ttab\u0001");
        headers.put("unicode", "é€😀");
        JsonObject parsed =
                Json.createReader(new StringReader(HeadersJson.encode(headers))).readObject();
        assertEquals(headers.size(), parsed.size());
        headers.forEach((key, value) -> assertEquals(value, parsed.getString(key)));
    }

    @Test
    void should_send_no_headers_as_null() {
        assertNull(HeadersJson.encode(Map.of()));
    }
}
