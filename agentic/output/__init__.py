"""Writing output folders: checked before replacing, written as one set, never over others' files.
The output folder's way is in one place here:

- ``folder``: what a folder may hold before a report replaces it, and whose report it is;
- ``staging``: a report's files written as one set under a lock, and swapped in atomically;
- ``page``: one HTML page written over nothing but a kit page.

Nothing here renders a report. It writes bytes it is given, and never over anything the kit did
not write."""
