package dev.courier.audit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.Provider;
import java.security.Principal;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Records each answered call of an {@link Audited} operation. It runs on the answer, mapped errors included, so
 * a refused purge is recorded as well as a done one. A failure to record is logged and does not change the
 * answer: the action has already happened or not by then.
 */
@Provider
@Audited
@ApplicationScoped
public class AuditFilter implements ContainerResponseFilter {

    private static final Logger LOG = Logger.getLogger(AuditFilter.class.getName());

    @Context
    private ResourceInfo resource;

    @Inject
    private AuditTrail trail;

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
            trail.record(caller == null ? "anonymous" : caller.getName(), action, target, response.getStatus());
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "could not record " + action + " on " + target + " in the audit trail", e);
        }
    }
}
