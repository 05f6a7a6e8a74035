// The rules page: only the theme the player chose for the game (light, dark or the system's).

import { applyTheme, loadSettings } from "./settings.js";

applyTheme(loadSettings().theme);
