package dev.courier.access;

import dev.courier.platform.Json;
import dev.courier.platform.ProblemException;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Who may send to and consume from one queue or topic, beyond holding the role for it. An action with no
 * grantees is not narrowed: the role decides. An action with grantees is allowed to a caller that is one of the
 * principals or in one of the groups, and to admins. JSON: {@code {"send": ["user:a", "group:b"], "consume":
 * [...]}}, at most {@value #MAX_PER_ACTION} grantees per action.
 */
public final class Grants {

    public static final int MAX_PER_ACTION = 32;

    /** No grants: the role decides. */
    public static final Grants NONE = new Grants(Map.of());

    private final Map<Action, Set<Grantee>> grantees;

    private Grants(Map<Action, Set<Grantee>> grantees) {
        this.grantees = grantees;
    }

    /** Grants from their JSON. @throws ProblemException 400 for any other shape, name or an unknown action */
    public static Grants fromJson(JsonValue json) {
        if (!(json instanceof JsonObject object)) {
            throw ProblemException.invalid("'grants' must be an object: {\"send\": [...], \"consume\": [...]}");
        }
        Map<Action, Set<Grantee>> grantees = new EnumMap<>(Action.class);
        for (Map.Entry<String, JsonValue> entry : object.entrySet()) {
            Action action = action(entry.getKey());
            if (entry.getValue().getValueType() != JsonValue.ValueType.ARRAY) {
                throw ProblemException.invalid("'grants." + action.field() + "' must be an array of grantees");
            }
            Set<Grantee> set = new LinkedHashSet<>();
            for (JsonValue item : entry.getValue().asJsonArray()) {
                if (!(item instanceof JsonString s)) {
                    throw ProblemException.invalid("'grants." + action.field() + "' must be an array of strings");
                }
                set.add(Grantee.parse(s.getString()));
            }
            put(grantees, action, set);
        }
        return of(grantees);
    }

    /** Grants as stored by {@link #encode()}; null or empty is {@link #NONE}. */
    public static Grants decode(String stored) {
        if (stored == null || stored.isEmpty()) {
            return NONE;
        }
        Map<Action, Set<Grantee>> grantees = new EnumMap<>(Action.class);
        for (String line : stored.split("\n")) {
            String[] words = line.split(" ");
            Set<Grantee> set = new LinkedHashSet<>();
            for (int i = 1; i < words.length; i++) {
                set.add(Grantee.parse(words[i]));
            }
            put(grantees, action(words[0]), set);
        }
        return of(grantees);
    }

    /** For storage: a line per action, {@code send user:a group:b}; null for {@link #NONE}. */
    public String encode() {
        if (grantees.isEmpty()) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        grantees.forEach((action, set) -> {
            out.append(out.length() == 0 ? "" : "\n").append(action.field());
            set.forEach(g -> out.append(' ').append(g));
        });
        return out.toString();
    }

    public JsonObject toJson() {
        JsonObjectBuilder json = Json.createObjectBuilder();
        grantees.forEach((action, set) -> {
            JsonArrayBuilder array = Json.createArrayBuilder();
            set.forEach(g -> array.add(g.toString()));
            json.add(action.field(), array);
        });
        return json.build();
    }

    /** The grantees of {@code action}; empty when the role decides. */
    public Set<Grantee> of(Action action) {
        return grantees.getOrDefault(action, Set.of());
    }

    /** Whether {@code caller} may do {@code action}: trusted, or not narrowed, or granted. */
    public boolean allow(Caller caller, Action action) {
        Set<Grantee> allowed = of(action);
        return caller.trusted() || allowed.isEmpty() || allowed.stream().anyMatch(g -> g.matches(caller));
    }

    /**
     * Whether {@code caller} may read the messages: trusted, or no action is narrowed, or granted one of the
     * narrowed actions. An action without grantees admits no reader once another action has them: a topic whose
     * consumers alone are named is not readable by every producer.
     */
    public boolean allowRead(Caller caller) {
        return caller.trusted()
                || grantees.isEmpty()
                || grantees.values().stream().flatMap(Set::stream).anyMatch(g -> g.matches(caller));
    }

    /** @throws NotGrantedException 403 unless {@link #allow} */
    public void require(Caller caller, Action action, String resource) {
        if (!allow(caller, action)) {
            throw new NotGrantedException(caller, action, resource);
        }
    }

    private static Action action(String field) {
        for (Action action : Action.values()) {
            if (action.field().equals(field)) {
                return action;
            }
        }
        throw ProblemException.invalid("grants are given for 'send' and 'consume', not '" + field + "'");
    }

    private static void put(Map<Action, Set<Grantee>> grantees, Action action, Set<Grantee> set) {
        if (set.size() > MAX_PER_ACTION) {
            throw ProblemException.invalid("at most " + MAX_PER_ACTION + " grantees per action");
        }
        if (!set.isEmpty()) {
            grantees.put(action, Collections.unmodifiableSet(set));
        }
    }

    private static Grants of(Map<Action, Set<Grantee>> grantees) {
        return grantees.isEmpty() ? NONE : new Grants(Collections.unmodifiableMap(grantees));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Grants g && g.grantees.equals(grantees);
    }

    @Override
    public int hashCode() {
        return grantees.hashCode();
    }

    @Override
    public String toString() {
        return String.valueOf(encode());
    }
}
