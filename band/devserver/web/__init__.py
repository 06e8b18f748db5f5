"""band dev's web room view: its routes, the page's own files (``static/``) and the third-party
code it serves (``vendor/``)."""
