package dev.courier.platform;

/**
 * A named point in a flow where a test may make the flow fail, to prove what a crash between two steps
 * leaves behind. Production uses {@link NoFaults}, which never fails; tests deploy an alternative.
 *
 * <p>A failing checkpoint throws {@link InjectedFault}, an unchecked exception, so a container-managed
 * transaction around it rolls back exactly as it would for a real crash of that step.
 */
public interface FaultInjection {

    /**
     * Passes, or throws {@link InjectedFault} when a test armed {@code point}.
     *
     * @param point the checkpoint's name, {@code capability.step}
     */
    void checkpoint(String point);

    /**
     * Whether any checkpoint may fail now: lets a flow skip the cost of placing a checkpoint where placing it
     * costs something (a synchronization on the transaction). Production's {@link NoFaults} answers false.
     */
    default boolean armed() {
        return false;
    }
}
