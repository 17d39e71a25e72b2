/** Below this fraction left in any budget dimension the run wraps up (seed 002: wrap-up at 15%). Strictly below: 0.15 itself does not wrap up. */
export const WRAP_UP_FRACTION = 0.15;
