package dev.courier.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.platform.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GrantsTest {

    private static Grants grants(String json) {
        return Grants.fromJson(Json.createReader(new StringReader(json)).readValue());
    }

    @Test
    void should_narrow_only_the_actions_that_name_grantees() {
        Grants grants = grants("{\"send\": [\"user:alice\", \"group:payments\"]}");
        Caller alice = Caller.of("alice", g -> false);
        Caller bob = Caller.of("bob", g -> false);
        Caller payer = Caller.of("carol", "payments"::equals);

        assertTrue(grants.allow(alice, Action.SEND));
        assertTrue(grants.allow(payer, Action.SEND), "a member of a granted group");
        assertFalse(grants.allow(bob, Action.SEND));
        assertTrue(grants.allow(bob, Action.CONSUME), "no consume grants: the role decides");
        assertTrue(grants.allow(Caller.TRUSTED, Action.SEND));
        NotGrantedException refused =
                assertThrows(NotGrantedException.class, () -> grants.require(bob, Action.SEND, "queue q"));
        assertEquals(403, refused.status());
        assertEquals("'bob' is not granted send on queue q", refused.getMessage());
    }

    @Test
    void should_not_mistake_a_user_for_a_group_of_the_same_name() {
        Grants grants = grants("{\"consume\": [\"group:alice\"]}");
        assertFalse(grants.allow(Caller.of("alice", g -> false), Action.CONSUME));
        assertTrue(grants.allow(Caller.of("someone", "alice"::equals), Action.CONSUME));
    }

    @Test
    void should_match_a_groups_full_path_whole() {
        Grants grants = grants("{\"consume\": [\"group:/emea/payments\"]}");
        assertTrue(grants.allow(Caller.of("a", "/emea/payments"::equals), Action.CONSUME));
        assertFalse(grants.allow(Caller.of("b", "/apac/payments"::equals), Action.CONSUME));
        assertFalse(grants.allow(Caller.of("c", "payments"::equals), Action.CONSUME));
        assertEquals(grants, Grants.decode(grants.encode()));
    }

    @Test
    void should_store_and_read_back_the_same_grants() {
        Grants grants = grants("{\"send\": [\"user:a.b@example.com\"], \"consume\": [\"group:x-y\", \"user:z_1\"]}");
        assertEquals("send user:a.b@example.com\nconsume group:x-y user:z_1", grants.encode());
        assertEquals(grants, Grants.decode(grants.encode()));
        assertEquals(grants, grants(grants.toJson().toString()));
        assertEquals(Set.of(new Grantee(Grantee.Kind.USER, "a.b@example.com")), grants.of(Action.SEND));
    }

    @Test
    void should_take_no_grants_or_empty_lists_as_none() {
        assertEquals(Grants.NONE, grants("{}"));
        assertEquals(Grants.NONE, grants("{\"send\": [], \"consume\": []}"));
        assertNull(Grants.NONE.encode());
        assertEquals(Grants.NONE, Grants.decode(null));
        assertEquals(JsonValue.EMPTY_JSON_OBJECT, Grants.NONE.toJson());
    }

    @Test
    void should_refuse_malformed_grants_with_400() {
        for (String bad : new String[] {
            "[]",
            "{\"publish\": []}",
            "{\"send\": \"user:a\"}",
            "{\"send\": [1]}",
            "{\"send\": [\"alice\"]}",
            "{\"send\": [\"user:\"]}",
            "{\"send\": [\"role:x\"]}",
            "{\"send\": [\"user:a b\"]}",
            "{\"send\": [\"user:a\\nconsume\"]}",
            "{\"send\": [\"user:" + "x".repeat(129) + "\"]}",
            "{\"send\": [\"user:/emea/alice\"]}",
            "{\"send\": [\"group:/emea//payments\"]}",
            "{\"send\": [\"group:/emea/payments/\"]}",
            "{\"send\": [\"group:/\"]}",
            "{\"send\": [\"group:/" + "x".repeat(128) + "\"]}"
        }) {
            ProblemException refused = assertThrows(ProblemException.class, () -> grants(bad), bad);
            assertEquals(400, refused.status(), bad);
        }
        StringBuilder many = new StringBuilder("{\"send\": [");
        for (int i = 0; i <= Grants.MAX_PER_ACTION; i++) {
            many.append(i == 0 ? "" : ",").append("\"user:u").append(i).append('"');
        }
        assertEquals(
                400,
                assertThrows(ProblemException.class, () -> grants(many + "]}")).status());
    }
}
