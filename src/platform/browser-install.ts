/** Importing this makes the browser platform this thread's (the browser entry and its worker do). */
import { browserPlatform } from "./browser.js";
import { installPlatform } from "./current.js";

installPlatform(browserPlatform);
