package dev.courier.reliable;

import dev.courier.platform.ProblemException;
import java.util.Map;

/**
 * A request that the message's (or delivery's) current state does not allow, such as a confirm after a
 * cancel: HTTP 409 whose problem body carries the current {@code state}; nothing written.
 */
public class StateConflictException extends ProblemException {

    private static final long serialVersionUID = 1L;

    private final String state;

    StateConflictException(String what, String id, Enum<?> state, String action) {
        super(409, "State conflict", what + " '" + id + "' is " + state + ": it cannot be " + action);
        this.state = state.name();
    }

    /** The state the message or delivery is in. */
    public String state() {
        return state;
    }

    @Override
    public Map<String, String> extensions() {
        return Map.of("state", state);
    }
}
