package dev.courier.web;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses to start Courier under an authentication mode that does not exist. {@code COURIER_AUTH} picks the
 * server's {@code auth-<mode>.xml}; any other value (credentials exported for curl under that name, say) would
 * include a file that is not there and leave the server with no way to log anyone in, answering 401 to every
 * call while it reports ready. Guarantee: Courier starts only under {@code basic} or {@code jwt}; otherwise the
 * application fails to start with a message naming the variable (never its value, which may be a password).
 */
@Singleton
@Startup
public class AuthenticationMode {

    private static final Logger LOG = Logger.getLogger(AuthenticationMode.class.getName());
    private static final Set<String> MODES = Set.of("basic", "jwt");

    @Inject
    @ConfigProperty(name = "courier.auth", defaultValue = "basic")
    String mode;

    @PostConstruct
    void check() {
        if (!MODES.contains(mode)) {
            String message = "COURIER_AUTH (courier.auth) is a value that is not a mode: it is the server's"
                    + " authentication mode, basic or jwt, not credentials. Courier does not start.";
            LOG.log(Level.SEVERE, message);
            throw new IllegalStateException(message);
        }
    }
}
