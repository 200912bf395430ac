package dev.courier.platform;

/** Thrown at a {@link FaultInjection} checkpoint that a test armed; stands for a crash at that point. */
public class InjectedFault extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InjectedFault(String point) {
        super("fault injected at " + point);
    }
}
