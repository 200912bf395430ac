package dev.courier.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/**
 * Courier's REST API, rooted at {@code /api}. Every error answers with an RFC 9457 problem body
 * ({@link dev.courier.platform.ProblemMapper}); the OpenAPI document is served at {@code /openapi}. Every
 * operation needs an authenticated caller with its role ({@link Roles}).
 */
@ApplicationPath("/api")
@OpenAPIDefinition(info = @Info(title = "Courier", version = "0.1",
        description = "Reliable messaging: transactional queue, reliable message service and XA, side by side."),
        security = @SecurityRequirement(name = "basic"))
@SecurityScheme(securitySchemeName = "basic", type = SecuritySchemeType.HTTP, scheme = "basic",
        description = "A user of Courier's registry; its groups grant the roles courier-admin, courier-producer, "
                + "courier-consumer.")
public class CourierApplication extends Application {
}
