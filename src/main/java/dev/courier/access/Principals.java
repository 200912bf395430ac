package dev.courier.access;

import dev.courier.platform.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The principals allowed to act under a name that is not theirs: for a producer (prepare, confirm and cancel its
 * messages), for a subscriber (report its deliveries consumed or failed). Unlike a grant, an empty set narrows to
 * nobody: a name no principal was registered for is used by admins and the server's own code only, so no caller
 * takes over a producer's check-backs or marks another subscriber's deliveries consumed.
 */
public final class Principals {

    public static final Principals NONE = new Principals(Set.of());

    private final Set<Grantee> grantees;

    private Principals(Set<Grantee> grantees) {
        this.grantees = grantees;
    }

    /** Principals from a JSON array of grantees. @throws ProblemException 400 for any other shape or a bad name */
    public static Principals fromJson(JsonValue json) {
        if (!(json instanceof JsonArray array)) {
            throw ProblemException.invalid("'principals' must be an array of grantees: [\"user:orders\", \"group:x\"]");
        }
        if (array.size() > Grants.MAX_PER_ACTION) {
            throw ProblemException.invalid("at most " + Grants.MAX_PER_ACTION + " principals");
        }
        Set<Grantee> set = new LinkedHashSet<>();
        for (JsonValue item : array) {
            if (!(item instanceof JsonString s)) {
                throw ProblemException.invalid("'principals' must be an array of strings");
            }
            set.add(Grantee.parse(s.getString()));
        }
        return new Principals(Set.copyOf(set));
    }

    /** As stored by {@link #encode()}; null or empty is {@link #NONE}. */
    public static Principals decode(String stored) {
        if (stored == null || stored.isBlank()) {
            return NONE;
        }
        Set<Grantee> set = new LinkedHashSet<>();
        for (String word : stored.trim().split(" ")) {
            set.add(Grantee.parse(word));
        }
        return new Principals(Set.copyOf(set));
    }

    /** For storage: {@code user:a group:b}; empty for {@link #NONE}. */
    public String encode() {
        return String.join(
                " ", grantees.stream().map(Grantee::toString).sorted().toList());
    }

    public JsonArray toJson() {
        JsonArrayBuilder array = Json.createArrayBuilder();
        grantees.stream().map(Grantee::toString).sorted().forEach(array::add);
        return array.build();
    }

    /** Whether {@code caller} may act under the name: trusted, or one of the principals (by name or group). */
    public boolean allow(Caller caller) {
        return caller.trusted() || grantees.stream().anyMatch(g -> g.matches(caller));
    }

    /** @throws NotGrantedException 403 unless {@link #allow}, naming {@code what} ("producer orders") */
    public void require(Caller caller, String what) {
        if (!allow(caller)) {
            throw NotGrantedException.actingFor(caller, what);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Principals p && p.grantees.equals(grantees);
    }

    @Override
    public int hashCode() {
        return grantees.hashCode();
    }

    @Override
    public String toString() {
        return encode();
    }
}
