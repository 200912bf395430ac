package dev.courier.audit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.Provider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Records each answered call of an {@link Audited} operation, with what it asked for: its request body (the
 * grants a definition set, say), up to the trail's detail width. It records on the answer, mapped errors included,
 * so a refused purge is recorded as well as a done one. A failure to record is logged and does not change the
 * answer: the action has already happened or not by then.
 */
@Provider
@Audited
@ApplicationScoped
public class AuditFilter implements ContainerRequestFilter, ContainerResponseFilter {

    private static final String BODY = AuditFilter.class.getName() + ".body";

    private static final Logger LOG = Logger.getLogger(AuditFilter.class.getName());

    @Context
    private ResourceInfo resource;

    @Inject
    private AuditTrail trail;

    /** Keeps the body's first bytes for the record, and hands the resource the whole body as it came. */
    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        if (request.hasEntity()) {
            InputStream body = request.getEntityStream();
            byte[] start = body.readNBytes(AuditTrail.MAX_DETAIL);
            request.setProperty(BODY, new String(start, StandardCharsets.UTF_8));
            request.setEntityStream(new SequenceInputStream(new ByteArrayInputStream(start), body));
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Audited audited = resource.getResourceMethod().getAnnotation(Audited.class);
        String action = audited != null && !audited.value().isEmpty()
                ? audited.value()
                : resource.getResourceMethod().getName();
        Principal caller = request.getSecurityContext().getUserPrincipal();
        UriInfo uri = request.getUriInfo();
        String query = uri.getRequestUri().getRawQuery();
        String target = request.getMethod() + " /api/" + uri.getPath(false).replaceFirst("^/", "")
                + (query == null ? "" : "?" + query);
        try {
            String body = (String) request.getProperty(BODY);
            trail.record(
                    caller == null ? "anonymous" : dev.courier.access.Caller.nameOf(caller),
                    action,
                    target,
                    response.getStatus(),
                    body == null || body.isBlank() ? null : body);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "could not record " + action + " on " + target + " in the audit trail", e);
        }
    }
}
