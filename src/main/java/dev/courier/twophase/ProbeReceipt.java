package dev.courier.twophase;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Objects;

/** What {@link XaProbeListener} saw of the message for one {@link ProbeRecord}: at most one per record. */
@Entity
@Table(name = "courier_probe_receipt")
public class ProbeReceipt {

    @Id
    @Column(name = "record_id")
    private String recordId;

    @Column(name = "message_id", nullable = false)
    private String messageId;

    @Column(nullable = false, length = ProbeRecord.MAX_BODY)
    private String body;

    @Column(name = "delivery_count", nullable = false)
    private int deliveryCount;

    @Column(name = "received_at", nullable = false)
    private Instant receivedAt;

    protected ProbeReceipt() {
        // for JPA
    }

    ProbeReceipt(String recordId, String messageId, String body, int deliveryCount, Instant receivedAt) {
        this.recordId = Objects.requireNonNull(recordId, "recordId is required");
        this.messageId = Objects.requireNonNull(messageId, "messageId is required");
        this.body = Objects.requireNonNull(body, "body is required");
        this.deliveryCount = deliveryCount;
        this.receivedAt = Objects.requireNonNull(receivedAt, "receivedAt is required");
    }

    public String recordId() {
        return recordId;
    }

    public String messageId() {
        return messageId;
    }

    public String body() {
        return body;
    }

    /** The JMS delivery count of the delivery that was processed: 1 unless earlier deliveries failed. */
    public int deliveryCount() {
        return deliveryCount;
    }

    public Instant receivedAt() {
        return receivedAt;
    }
}
