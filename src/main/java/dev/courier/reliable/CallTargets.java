package dev.courier.reliable;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * Where Courier may call a producer (its check-back and notification URLs). The host must be allowed by
 * {@code courier.reliable.allowed-url-hosts}; and unless the list names that host itself, every address it resolves
 * to must be a public one: loopback, private, link-local (the cloud metadata address 169.254.169.254 among them),
 * unique-local, multicast and unspecified addresses are refused, so a producer's registration cannot turn
 * Courier's calls on its own network. Checked when a producer registers and again before every call, since what a
 * name resolves to can change.
 */
final class CallTargets {

    private CallTargets() {}

    /** @return null when Courier may call {@code url}, else why not (a short sentence, no address echoed) */
    static String refusal(URI url, List<String> allowedHosts) {
        String host = url.getHost();
        if (host == null) {
            return "the URL names no host";
        }
        String name = host.toLowerCase(Locale.ROOT);
        boolean named = false;
        boolean allowed = false;
        for (String entry : allowedHosts) {
            String e = entry.trim().toLowerCase(Locale.ROOT);
            named |= e.equals(name);
            allowed |= e.equals("*") || e.equals(name) || e.startsWith(".") && name.endsWith(e);
        }
        if (!allowed) {
            return "the URL names a host that producers' URLs may not name (courier.reliable.allowed-url-hosts)";
        }
        if (named) {
            return null; // an operator named this host: an internal producer is theirs to allow
        }
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                if (internal(address)) {
                    return "the URL's host resolves to a loopback, private, link-local or metadata address; name the"
                            + " host in courier.reliable.allowed-url-hosts to allow it";
                }
            }
            return null;
        } catch (UnknownHostException e) {
            return "the URL's host does not resolve";
        }
    }

    static boolean internal(InetAddress address) {
        byte[] bytes = address.getAddress();
        boolean uniqueLocal = address instanceof Inet6Address && (bytes[0] & 0xfe) == 0xfc; // fc00::/7
        boolean sharedOrThisNetwork = bytes.length == 4
                && (bytes[0] == 0 || (bytes[0] & 0xff) == 100 && (bytes[1] & 0xc0) == 64); // 0/8, 100.64/10
        return address.isLoopbackAddress()
                || address.isAnyLocalAddress()
                || address.isLinkLocalAddress()
                || address.isSiteLocalAddress()
                || address.isMulticastAddress()
                || uniqueLocal
                || sharedOrThisNetwork;
    }
}
