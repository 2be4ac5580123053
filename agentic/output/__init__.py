"""The output folder's way, in one place: what a folder may hold before a report replaces it and
whose report it is (``folder``), writing a report's files as one set under a lock and swapping
them in atomically (``staging``), and writing one HTML page over nothing but a kit page
(``page``). Nothing here renders a report; it writes bytes it is given, and never over anything
the kit did not write."""
