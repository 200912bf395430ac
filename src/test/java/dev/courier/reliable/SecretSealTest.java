package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.client.CallSignature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretSealTest {

    private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);
    private static final String OTHER_KEY = Base64.getEncoder().encodeToString(new byte[] {
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
        31, 32
    });

    @TempDir
    Path data;

    @Test
    void should_open_what_it_sealed_for_the_same_producer_only() {
        SecretSeal seal = new SecretSeal(KEY);
        String secret = CallSignature.newSecret();
        String sealed = seal.seal("orders", secret);
        assertTrue(sealed.startsWith("v1:") && sealed.length() <= 200, sealed);
        assertFalse(sealed.contains(secret));
        assertNotEquals(sealed, seal.seal("orders", secret), "a fresh nonce each time");
        assertEquals(secret, seal.open("orders", sealed));
        assertNull(seal.open("billing", sealed), "moved to another producer's row, it does not open");
        assertNull(new SecretSeal(OTHER_KEY).open("orders", sealed), "another key does not open it");
        assertNull(seal.open("orders", "v1:" + "A".repeat(40)), "tampered");
        assertEquals(secret, seal.open("orders", secret), "a secret stored before sealing is read as it is");
        assertNull(seal.open("orders", null));
    }

    @Test
    void should_make_an_owner_only_key_file_once_when_no_key_is_configured() throws Exception {
        SecretSeal first = new SecretSeal();
        first.configuredKey = Optional.empty();
        first.dataDir = Optional.of(data.toString());
        String sealed = first.seal("orders", "s3cret");
        Path file = data.resolve("security/secrets.key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(32, Base64.getDecoder().decode(Files.readString(file).trim()).length);

        SecretSeal restarted = new SecretSeal();
        restarted.configuredKey = Optional.empty();
        restarted.dataDir = Optional.of(data.toString());
        assertEquals("s3cret", restarted.open("orders", sealed), "the same key after a restart");
        try (var files = Files.list(data.resolve("security"))) {
            assertEquals(1, files.count(), "no temporary file left");
        }
    }
}
