package dev.courier.twophase;

import dev.courier.platform.FaultInjection;
import dev.courier.platform.ProblemException;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;

/**
 * Writes a {@link ProbeRecord} and sends a JMS message naming it, in one XA transaction.
 *
 * <p>Transactional contract: {@link #record} joins the caller's JTA transaction or starts one
 * ({@code REQUIRED}). If that transaction commits, both the row and the message exist; if it rolls back —
 * by an exception from this bean or the caller, or by {@code setRollbackOnly} — neither does: the broker
 * never holds the message.
 */
@Stateless
public class XaProbe {

    /** Name of the JMS string property carrying the record id. */
    static final String RECORD_ID = "courierRecordId";

    static final String AFTER_WRITE = "twophase.probe.after-write";
    static final String AFTER_SEND = "twophase.probe.after-send";

    @PersistenceContext(unitName = "courier")
    private EntityManager em;

    @Resource(lookup = "jms/courier")
    private ConnectionFactory connectionFactory;

    @Resource(lookup = "jms/xaProbe")
    private Queue queue;

    @Inject
    private XaOutcomes outcomes;

    @Inject
    private FaultInjection faults;

    @Inject
    private Clock clock;

    /**
     * Records {@code body} and announces it on the probe queue, both inside the current transaction.
     *
     * @throws ProblemException 400 when {@code body} is missing, blank or longer than {@link ProbeRecord#MAX_BODY}
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public ProbeRecord record(String body) {
        if (body == null || body.isBlank()) {
            throw ProblemException.invalid("body is required and must not be blank");
        }
        if (body.length() > ProbeRecord.MAX_BODY) {
            throw ProblemException.invalid("body is longer than " + ProbeRecord.MAX_BODY + " characters");
        }
        ProbeRecord record = new ProbeRecord(UUID.randomUUID().toString(), body, clock.instant());
        outcomes.count("probe");
        em.persist(record);
        faults.checkpoint(AFTER_WRITE);
        try (JMSContext jms = connectionFactory.createContext()) {
            jms.createProducer().setProperty(RECORD_ID, record.id()).send(queue, body);
        }
        faults.checkpoint(AFTER_SEND);
        return record;
    }

    /** The record with {@code id}, if its transaction committed. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<ProbeRecord> find(String id) {
        return Optional.ofNullable(em.find(ProbeRecord.class, id));
    }

    /** The listener's receipt for record {@code id}, once the message was processed. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<ProbeReceipt> receipt(String id) {
        return Optional.ofNullable(em.find(ProbeReceipt.class, id));
    }
}
