package dev.courier.reliable;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * At start: loads the sealing key (a bad {@code courier.secrets.key} stops Courier here), and seals the signing
 * secrets stored before {@link SecretSeal} existed, each in its own statement that changes the row only if it still
 * holds the clear secret read: servers starting together seal each secret once.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
public class ProducerSecretsSealing {

    private static final Logger LOG = Logger.getLogger(ProducerSecretsSealing.class.getName());

    @Inject
    private ReliableDatabase database;

    @Inject
    private SecretSeal seal;

    @PostConstruct
    void sealClearSecrets() {
        seal.ready();
        Map<String, String> clear = new LinkedHashMap<>();
        try (Connection c = database.connection()) {
            try (PreparedStatement select = c.prepareStatement(
                            "SELECT name, signing_secret FROM courier_rm_producer WHERE signing_secret IS NOT NULL");
                    ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    if (!SecretSeal.sealed(rows.getString(2))) {
                        clear.put(rows.getString(1), rows.getString(2));
                    }
                }
            }
            try (PreparedStatement update = c.prepareStatement(
                    "UPDATE courier_rm_producer SET signing_secret = ? WHERE name = ? AND signing_secret = ?")) {
                for (Map.Entry<String, String> producer : clear.entrySet()) {
                    update.setString(1, seal.seal(producer.getKey(), producer.getValue()));
                    update.setString(2, producer.getKey());
                    update.setString(3, producer.getValue());
                    update.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("sealing the producers' signing secrets failed", e);
        }
        if (!clear.isEmpty()) {
            LOG.info("sealed the signing secrets of " + clear.size() + " producers, stored in clear before");
        }
    }
}
