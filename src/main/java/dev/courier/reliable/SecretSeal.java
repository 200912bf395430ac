package dev.courier.reliable;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.logging.Logger;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps producers' signing secrets sealed in the database: AES-256-GCM under a key that is not in the database, bound
 * to the producer's name. Someone who reads {@code courier_rm_producer} (a backup, a replica, a role with SELECT)
 * gets no secret to forge Courier's calls or a producer's answers with; a secret moved to another producer's row
 * does not open. The key is {@code courier.secrets.key} (base64 of 32 bytes; every server of one database must have
 * the same), or else {@code <courier.data.dir>/security/secrets.key}, made owner-only on first use. A secret stored
 * before sealing (no {@code v1:} prefix) is read as it is ({@link ProducerSecretsSealing} seals them at start).
 */
@ApplicationScoped
class SecretSeal {

    private static final Logger LOG = Logger.getLogger(SecretSeal.class.getName());
    private static final String PREFIX = "v1:";
    private static final int NONCE_BYTES = 12;
    private static final SecureRandom RANDOM = new SecureRandom();

    @Inject
    @ConfigProperty(name = "courier.secrets.key")
    Optional<String> configuredKey;

    @Inject
    @ConfigProperty(name = "courier.data.dir")
    Optional<String> dataDir;

    private volatile SecretKey key;

    SecretSeal() {}

    /** For tests: a seal with this key (base64 of 32 bytes). */
    SecretSeal(String base64Key) {
        this.key = decode(base64Key);
    }

    /**
     * Loads the key now, so that a key that is not one (or no place to keep it) stops Courier at start, not its
     * first check-back. @throws IllegalStateException saying what is wrong with the key
     */
    void ready() {
        key();
    }

    /** @return {@code secret} sealed for {@code producer}'s row; null for null */
    String seal(String producer, String secret) {
        if (secret == null) {
            return null;
        }
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            Cipher cipher = cipher(Cipher.ENCRYPT_MODE, nonce, producer);
            byte[] sealed = cipher.doFinal(secret.getBytes(StandardCharsets.UTF_8));
            byte[] stored = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, stored, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, stored, NONCE_BYTES, sealed.length);
            return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(stored);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("sealing a signing secret failed", e);
        }
    }

    /**
     * @return the secret {@code stored} holds for {@code producer}: opened if sealed, as it is if stored before
     *     sealing; null for null, and for a secret this key cannot open (sealed under another key, or for another
     *     producer: logged), which Courier treats as no secret (it calls nobody unsigned)
     */
    String open(String producer, String stored) {
        if (stored == null || !sealed(stored)) {
            return stored;
        }
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(stored.substring(PREFIX.length()));
            byte[] nonce = java.util.Arrays.copyOf(bytes, NONCE_BYTES);
            Cipher cipher = cipher(Cipher.DECRYPT_MODE, nonce, producer);
            return new String(cipher.doFinal(bytes, NONCE_BYTES, bytes.length - NONCE_BYTES), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            LOG.warning("the signing secret of producer '" + producer + "' does not open with this server's key: every"
                    + " server must have the same courier.secrets.key; or give the producer a new secret (POST"
                    + " /api/producers/{name}/secret)");
            return null;
        }
    }

    static boolean sealed(String stored) {
        return stored.startsWith(PREFIX);
    }

    private Cipher cipher(int mode, byte[] nonce, String producer) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, key(), new GCMParameterSpec(128, nonce));
        cipher.updateAAD(("courier_rm_producer:" + producer).getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    private SecretKey key() {
        SecretKey known = key;
        if (known == null) {
            synchronized (this) {
                if (key == null) {
                    key = decode(configuredKey.filter(k -> !k.isBlank()).orElseGet(this::keyFile));
                }
                known = key;
            }
        }
        return known;
    }

    /** The key file's content, made on first use when there is none. */
    private String keyFile() {
        Path file = Path.of(dataDir.orElseThrow(() ->
                        new IllegalStateException("no courier.secrets.key and no courier.data.dir to keep one in")))
                .resolve("security/secrets.key");
        try {
            if (!Files.exists(file)) {
                byte[] bytes = new byte[32];
                RANDOM.nextBytes(bytes);
                Files.createDirectories(file.getParent());
                // Written whole beside it, then linked in place: link(2) fails if the file exists, so two servers
                // starting on one data directory agree on the first key and no one reads half a file.
                Path made = Files.createTempFile(
                        file.getParent(),
                        "secrets",
                        ".key",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                try {
                    Files.writeString(made, Base64.getEncoder().encodeToString(bytes) + "\n");
                    Files.createLink(file, made);
                    LOG.info("made the key that seals producers' signing secrets: " + file
                            + " (servers sharing this database need the same: courier.secrets.key)");
                } catch (FileAlreadyExistsException e) {
                    // another server on this data directory made it first: theirs is the key
                } finally {
                    Files.deleteIfExists(made);
                }
            }
            return Files.readString(file).trim();
        } catch (IOException e) {
            throw new IllegalStateException("the key that seals signing secrets cannot be kept in " + file, e);
        }
    }

    private static SecretKey decode(String base64) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("courier.secrets.key is not base64", e);
        }
        if (bytes.length != 32) {
            throw new IllegalStateException("courier.secrets.key must be 32 bytes (base64), not " + bytes.length);
        }
        return new SecretKeySpec(bytes, "AES");
    }
}
