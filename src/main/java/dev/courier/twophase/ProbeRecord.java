package dev.courier.twophase;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Objects;

/** A row written by {@link XaProbe} in the same XA transaction as the message announcing it. */
@Entity
@Table(name = "courier_probe_record")
public class ProbeRecord {

    /** Longest body a probe accepts: the column is VARCHAR(1000). */
    public static final int MAX_BODY = 1000;

    @Id
    private String id;

    @Column(nullable = false, length = MAX_BODY)
    private String body;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected ProbeRecord() {
        // for JPA
    }

    ProbeRecord(String id, String body, Instant createdAt) {
        this.id = Objects.requireNonNull(id, "id is required");
        this.body = Objects.requireNonNull(body, "body is required");
        this.createdAt = Objects.requireNonNull(createdAt, "createdAt is required");
    }

    public String id() {
        return id;
    }

    public String body() {
        return body;
    }

    public Instant createdAt() {
        return createdAt;
    }
}
