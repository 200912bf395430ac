package dev.courier.reliable;

import java.time.Duration;
import java.time.Instant;

/**
 * Paces the check-back calls to one producer: a bulkhead (at most {@code concurrency} calls at once) and a
 * {@link Circuit}. One gate per producer, so a slow or dead producer uses up its own permits and opens its own
 * circuit, never another producer's. All transitions are in this class, under its lock.
 */
final class ProducerGate {

    private final int concurrency;
    private final int failureThreshold;
    private final Duration openFor;

    private int inFlight;
    private int failuresInARow;
    private Circuit circuit = Circuit.CLOSED;
    private Instant openUntil = Instant.MIN;
    private boolean trialInFlight;
    private String lastError;

    ProducerGate(int concurrency, int failureThreshold, Duration openFor) {
        this.concurrency = concurrency;
        this.failureThreshold = failureThreshold;
        this.openFor = openFor;
    }

    /** Takes a permit for one call, or answers false when the circuit is open or the bulkhead is full. */
    synchronized boolean tryAcquire(Instant now) {
        if (circuit(now) == Circuit.OPEN || inFlight >= concurrency) {
            return false;
        }
        if (circuit == Circuit.HALF_OPEN) {
            if (trialInFlight) {
                return false;
            }
            trialInFlight = true;
        }
        inFlight++;
        return true;
    }

    /** Returns the permit of a call that reached the producer and got an answer. */
    synchronized void succeeded() {
        inFlight--;
        trialInFlight = false;
        failuresInARow = 0;
        circuit = Circuit.CLOSED;
    }

    /** Returns the permit of a call that failed (no answer, error status, unreadable answer). */
    synchronized void failed(String error, Instant now) {
        inFlight--;
        lastError = error;
        failuresInARow++;
        if (circuit == Circuit.HALF_OPEN || failuresInARow >= failureThreshold) {
            circuit = Circuit.OPEN;
            openUntil = now.plus(openFor);
        }
        trialInFlight = false;
    }

    /** The circuit at {@code now}: an open circuit whose time ran out is half open. */
    synchronized Circuit circuit(Instant now) {
        if (circuit == Circuit.OPEN && !now.isBefore(openUntil)) {
            circuit = Circuit.HALF_OPEN;
        }
        return circuit;
    }

    /** When a refused call should be tried again. */
    synchronized Instant retryAt(Instant now, Duration soon) {
        return circuit(now) == Circuit.OPEN ? openUntil : now.plus(soon);
    }

    synchronized String lastError() {
        return lastError;
    }
}
