package dev.courier.reliable;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The {@link ProducerGate} of each producer on this server. */
@ApplicationScoped
class ProducerGates {

    private final Map<String, ProducerGate> gates = new ConcurrentHashMap<>();

    @Inject
    private ReliableSettings settings;

    ProducerGate of(String producer) {
        return gates.computeIfAbsent(
                producer,
                name -> new ProducerGate(settings.producerConcurrency, settings.circuitFailures, settings.circuitOpen));
    }
}
