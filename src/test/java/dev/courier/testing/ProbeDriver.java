package dev.courier.testing;

import dev.courier.twophase.XaProbe;
import jakarta.annotation.Resource;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** Test-side caller of {@link XaProbe} that marks its own transaction rollback-only after the probe ran. */
@Stateless
public class ProbeDriver {

    @Inject
    private XaProbe probe;

    @Resource
    private SessionContext context;

    @PersistenceContext(unitName = "courier")
    private EntityManager em;

    /** How many probe records with {@code body} exist: the way to look for a row whose id was never returned. */
    public long countRecords(String body) {
        return em.createQuery("SELECT COUNT(r) FROM ProbeRecord r WHERE r.body = :body", Long.class)
                .setParameter("body", body)
                .getSingleResult();
    }

    public String recordThenSetRollbackOnly(String body) {
        String id = probe.record(body).id();
        context.setRollbackOnly();
        return id;
    }
}
