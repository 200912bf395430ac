package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallTargetsTest {

    private static final List<String> ANY = List.of("*");

    @Test
    void should_refuse_internal_addresses_a_wildcard_lets_through() {
        for (String url : new String[] {
            "http://127.0.0.1/cb",
            "http://localhost/cb",
            "http://169.254.169.254/latest/meta-data",
            "http://10.1.2.3/cb",
            "http://172.16.0.1/cb",
            "http://192.168.1.1/cb",
            "http://100.64.0.1/cb",
            "http://0.0.0.0/cb",
            "http://[::1]/cb",
            "http://[fd00:ec2::254]/cb",
            "http://[fe80::1]/cb",
            "http://[::ffff:127.0.0.1]/cb"
        }) {
            String refused = CallTargets.refusal(URI.create(url), ANY);
            assertNotNull(refused, url);
            assertTrue(refused.contains("allowed-url-hosts"), refused);
            assertFalse(refused.contains(URI.create(url).getHost()), "no address echoed: " + refused);
        }
    }

    @Test
    void should_take_a_public_address_and_an_internal_host_the_operator_named() {
        assertNull(CallTargets.refusal(URI.create("http://93.184.215.14/cb"), ANY));
        assertNull(CallTargets.refusal(URI.create("http://localhost:9080/cb"), List.of("localhost", "127.0.0.1")));
        assertNull(CallTargets.refusal(URI.create("http://127.0.0.1:9080/cb"), List.of("localhost", "127.0.0.1")));
        assertNotNull(
                CallTargets.refusal(URI.create("http://127.0.0.1/cb"), List.of(".example.com")), "not on the list");
    }

    @Test
    void should_class_addresses() throws Exception {
        assertTrue(CallTargets.internal(InetAddress.getByName("169.254.169.254")));
        assertTrue(CallTargets.internal(InetAddress.getByName("fc00::1")));
        assertFalse(CallTargets.internal(InetAddress.getByName("100.128.0.1")));
        assertFalse(CallTargets.internal(InetAddress.getByName("8.8.8.8")));
        assertFalse(CallTargets.internal(InetAddress.getByName("2001:4860:4860::8888")));
    }
}
