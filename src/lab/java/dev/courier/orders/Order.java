package dev.courier.orders;

import jakarta.json.Json;
import java.util.Objects;
import java.util.regex.Pattern;

/** An order to place: one line of {@code quantity} items of {@code sku}. */
public record Order(String id, Mode mode, String sku, int quantity) {

    /** The seeded item with ample stock that an order without a sku buys. */
    public static final String DEFAULT_SKU = "widget";

    private static final Pattern SKU = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,62}");

    /**
     * The order as the inventory reads it, whichever mechanism carries it: {@code {"orderId", "sku", "quantity"}}.
     */
    public String message() {
        return Json.createObjectBuilder()
                .add("orderId", id)
                .add("sku", sku)
                .add("quantity", quantity)
                .build()
                .toString();
    }

    /** @throws OrderProblem 400 for a bad sku or quantity */
    public Order {
        Objects.requireNonNull(id, "id is required");
        Objects.requireNonNull(mode, "mode is required");
        if (sku == null || !SKU.matcher(sku).matches()) {
            throw OrderProblem.invalid("'sku' must be 1 to 63 letters, digits, '_' or '-'");
        }
        if (quantity < 1 || quantity > 1000) {
            throw OrderProblem.invalid("'quantity' must be from 1 to 1000");
        }
    }
}
